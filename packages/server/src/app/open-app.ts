import { LroEvents } from "@atlatl/lro";
import { localOffloadStore, Offloader, type OffloadStore } from "@atlatl/lro/node";
import {
  loadServerConfig,
  type ServerConfig,
  type ServerConfigOverrides,
} from "../config/server-config.js";
import { createOffloadStore } from "../offload-store/create-offload-store.js";
import { createServices, type Services } from "../services/create-services.js";
import { openStore } from "../store/open-store.js";
import type { MemoryStore } from "../store/store.js";

/** Everything a command needs: configuration, store, services and the LRO engine. */
export interface App {
  config: ServerConfig;
  store: MemoryStore;
  services: Services;
  offloader: Offloader;
  /**
   * Where HTTP principals' offload files are shared between instances
   * (`[offload_store]` when opened with `sharedOffloads`, else local). The HTTP server binds each
   * principal's offloader to it (`Principals`); the stdio server's own
   * offloader stays local, its files readable by its one client only.
   */
  offloadStore: OffloadStore;
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
  /**
   * Open the configured `[offload_store]` (`atlatl serve --http`). Default
   * false: the local file system, so CLI commands never connect to nor create
   * a shared store they do not serve files from.
   */
  sharedOffloads?: boolean;
}

/** Resolve the configuration, open the store (migrating it) and build the services. */
export async function openApp(options: OpenAppOptions = {}): Promise<App> {
  const config = loadServerConfig(options, options.env ?? process.env);
  const store = await openStore(config.store, { readOnly: options.readOnlyStore });
  const events = new LroEvents(options.logEvents === false ? { sink: null } : {});
  // The CLI's transports sweep the directory themselves (stdio's sweeper, HTTP's principal sweeper).
  const offloader = new Offloader({ config: config.offload, events, sweep: false });
  let offloadStore: OffloadStore = localOffloadStore;
  if (options.sharedOffloads) {
    try {
      offloadStore = await createOffloadStore(config.offloadStore, {
        url: config.store.url,
        timeouts: config.store.timeouts,
      });
    } catch (err) {
      await store.close();
      throw err;
    }
  }
  return {
    config,
    store,
    services: createServices(store, config.recall),
    offloader,
    offloadStore,
    events,
    close: async () => {
      await offloadStore.close();
      await store.close();
    },
  };
}
