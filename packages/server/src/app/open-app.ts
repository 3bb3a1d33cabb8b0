import { LroEvents } from "@atlatl/lro";
import { Offloader } from "@atlatl/lro/node";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type pg from "pg";
import {
  loadServerConfig,
  type ServerConfig,
  type ServerConfigOverrides,
} from "../config/server-config.js";
import type { MemoryEmbeddings } from "../embeddings/memory-embeddings.js";
import { openEmbeddings } from "../embeddings/open-embeddings.js";
import { createTaskStore } from "../mcp/tasks/create-task-store.js";
import type { TaskStore } from "../mcp/tasks/task-store.js";
import { createOffloadStore } from "../offload-store/create-offload-store.js";
import {
  localServedStore,
  type ServedOffloadStore,
} from "../offload-store/served-offload-store.js";
import { createServices, type Services } from "../services/create-services.js";
import { openStore, openStorePool } from "../store/open-store.js";
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
  offloadStore: ServedOffloadStore;
  /** Hybrid recall's vectors and endpoint (`[embeddings]`); null when recall is lexical. */
  embeddings: MemoryEmbeddings | null;
  /** The server's MCP tasks, kept where the offload files are (`createTaskStore`). */
  taskStore: TaskStore<CallToolResult>;
  events: LroEvents;
  /** Close the stores, then end the instance's PostgreSQL pool. */
  close(): Promise<void>;
}

interface OpenAppOptions extends ServerConfigOverrides {
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
  /** `atlatl embed --reset`: drop the store's vectors and bind it to the configured model. */
  resetEmbeddings?: boolean;
}

/**
 * Resolve the configuration, open the stores (the memory store migrated) and
 * build the services. On PostgreSQL the memory, offload and task stores share
 * the instance's one pool (`[store] pool_size` connections).
 */
export async function openApp(options: OpenAppOptions = {}): Promise<App> {
  const config = loadServerConfig(options, options.env ?? process.env);
  const pool = await openStorePool(config.store);
  const opened: { close(): Promise<void> }[] = [];
  try {
    const store = await openStore(config.store, { readOnly: options.readOnlyStore, pool });
    opened.push(store);
    const embeddings = await openEmbeddings(config.embeddings, store, {
      readOnly: options.readOnlyStore === true,
      reset: options.resetEmbeddings === true,
    });
    const offloadStore = options.sharedOffloads
      ? await createOffloadStore(config.offloadStore, { pool })
      : localServedStore;
    opened.push(offloadStore);
    const taskStore = await createTaskStore({
      offloadStore,
      offloadTtlSeconds: config.offload.ttlSeconds,
    });
    opened.push(taskStore);
    const events = new LroEvents(options.logEvents === false ? { sink: null } : {});
    // The CLI's transports sweep the directory themselves (stdio's sweeper, HTTP's principal sweeper).
    const offloader = new Offloader({ config: config.offload, events, sweep: false });
    let closed: Promise<void> | undefined;
    return {
      config,
      store,
      services: createServices(store, { ...config.recall, embeddings: embeddings ?? undefined }),
      embeddings,
      offloader,
      offloadStore,
      taskStore,
      events,
      close: () => {
        closed ??= closeAll(opened, pool);
        return closed;
      },
    };
  } catch (err) {
    await closeAll(opened, pool);
    throw err;
  }
}

/** Close what was opened, the last first, then end the pool they share. */
async function closeAll(opened: { close(): Promise<void> }[], pool: pg.Pool | undefined) {
  for (const part of [...opened].reverse()) await part.close().catch(() => undefined);
  await pool?.end().catch(() => undefined);
}
