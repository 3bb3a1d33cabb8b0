import { LroEvents } from "@atlatl/lro";
import { Offloader } from "@atlatl/lro/node";
import {
  loadServerConfig,
  type ServerConfig,
  type ServerConfigOverrides,
} from "../config/server-config.js";
import { createServices, type Services } from "../services/create-services.js";
import { openStore } from "../store/open-store.js";
import type { MemoryStore } from "../store/store.js";

/** Everything a command needs: configuration, store, services and the LRO engine. */
export interface App {
  config: ServerConfig;
  store: MemoryStore;
  services: Services;
  offloader: Offloader;
  events: LroEvents;
  close(): Promise<void>;
}

export interface OpenAppOptions extends ServerConfigOverrides {
  /** Environment to read `ATLATL_*` from (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** LRO events as JSON lines on stderr (default true). */
  logEvents?: boolean;
  /** Open the store for reading only: never created or migrated (read commands). */
  readOnlyStore?: boolean;
}

/** Resolve the configuration, open the store (migrating it) and build the services. */
export async function openApp(options: OpenAppOptions = {}): Promise<App> {
  const config = loadServerConfig(options, options.env ?? process.env);
  const store = await openStore(config.store, { readOnly: options.readOnlyStore });
  const events = new LroEvents(options.logEvents === false ? { sink: null } : {});
  const offloader = new Offloader({ config: config.offload, events });
  return {
    config,
    store,
    services: createServices(store),
    offloader,
    events,
    close: () => store.close(),
  };
}
