import type { MemoryEmbeddings } from "../embeddings/memory-embeddings.js";
import type { MemoryStore } from "../store/store.js";
import { type ContextOptions, ContextService } from "./context-service.js";
import { HybridRecallService } from "./hybrid-recall-service.js";
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

/**
 * Build every service over `store` (a clock and a token estimator are
 * injectable). With `embeddings`, recall is hybrid and writes are embedded.
 */
export function createServices(
  store: MemoryStore,
  options: ServiceOptions & ContextOptions & { embeddings?: MemoryEmbeddings | undefined } = {},
): Services {
  const embeddings = options.embeddings;
  return {
    memories: new MemoryService(
      store,
      embeddings ? { ...options, afterWrite: (m) => embeddings.afterWrite(m) } : options,
    ),
    recall: embeddings
      ? new HybridRecallService(store, embeddings, options)
      : new RecallService(store, options),
    search: new SearchService(store, options),
    list: new ListService(store),
    context: new ContextService(options),
  };
}
