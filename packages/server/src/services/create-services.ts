import type { MemoryStore } from "../store/store.js";
import { type ContextOptions, ContextService } from "./context-service.js";
import { ListService } from "./list-service.js";
import { MemoryService, type ServiceOptions } from "./memory-service.js";
import { RecallService } from "./recall-service.js";
import { SearchService } from "./search-service.js";

/** Every service over one store. */
export interface Services {
  memories: MemoryService;
  recall: RecallService;
  search: SearchService;
  list: ListService;
  context: ContextService;
}

/** Build every service over `store` (a clock and a token estimator are injectable). */
export function createServices(
  store: MemoryStore,
  options: ServiceOptions & ContextOptions = {},
): Services {
  return {
    memories: new MemoryService(store, options),
    recall: new RecallService(store, options),
    search: new SearchService(store, options),
    list: new ListService(store),
    context: new ContextService(options),
  };
}
