/**
 * Offload files as MCP resources, for clients that cannot touch the server's
 * disk: every live file is listed as `atlatl://offload/{file name}` while it
 * lives (with a shared offload store, the principal's files every instance
 * wrote: `offload-resource-list.ts`), and `resources/read` returns its text (`application/x-ndjson`).
 *
 * Paging: a read returns whole lines, at most `pageBytes` of them (default
 * 1 MiB, always at least one line). Line 1 is the header (as everywhere in
 * LRO), and `atlatl://offload/{name}?offset=N&limit=M` skips N lines and reads
 * M (M optional): offset 0 starts at the header, offset 1 at the first record. When lines remain, the content's `_meta` carries
 * `atlatl/next_uri` (the next page), `atlatl/total_lines`, `atlatl/offset` and
 * `atlatl/lines`; concatenating the pages gives the file byte for byte.
 * An expired or deleted file drops out of the list and is refused on read
 * (resource not found: -32602 with `data.uri`, as SDK 2.x says it).
 * New and expired files notify `list_changed`, once the client is initialized.
 *
 * Caching (MCP 2026-07-28): a read is `cacheScope: "private"` (the file is its
 * principal's) with `ttlMs` = the file's remaining life ({@link offloadCacheFields});
 * the lists change with every offload: private, `ttlMs: 0`
 * ({@link OFFLOAD_LIST_CACHE}). 2025-11-25 clients ignore the fields.
 */

import type { OffloadConfig } from "../../config/offload-config.js";
import { LroError } from "../../errors.js";
import type { LroEvents } from "../../events/events.js";
import { openOffloadFile } from "../../extract/confine.js";
import { type LoadedOffload, OffloadFileCache } from "../../extract/offload-reader.js";
import type { OffloadStoreBinding } from "../../offload-store/offload-store.js";
import type { ListResourcesResult, ReadResourceResult } from "../../protocol/mcp-types.js";
import {
  type McpNames,
  mcpNames,
  OFFLOAD_MIME_TYPE,
  offloadResourceUri,
} from "../../protocol/offload-resource-uri.js";
import {
  type ConnectionState,
  hostCallback,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  isMcpServerHost,
  JsonRpcError,
  type LowLevelServer,
  type McpHost,
  type McpServerHost,
  type Removable,
  resourceNotFound,
} from "./host.js";
import { mountResources, type ResourcesUpstream } from "./low-level.js";
import { listOffloadResources } from "./offload-resource-list.js";

/** Name of the resource template. */
export const OFFLOAD_RESOURCE_TEMPLATE_NAME = "offload-file";

/** The MCP 2026-07-28 cache fields of a result (`ttlMs` in whole milliseconds). */
export interface CacheFields {
  cacheScope: "private" | "public";
  ttlMs: number;
}

/**
 * The cache fields of a `resources/read` of an offload file: private (the
 * file belongs to its principal), fresh for the file's remaining life — the
 * time until a read is refused as expired (its ULID time plus the TTL; never
 * negative).
 */
export function offloadCacheFields(
  createdAt: number,
  ttlSeconds: number,
  now: number,
): CacheFields {
  return {
    cacheScope: "private",
    ttlMs: Math.max(0, Math.floor(createdAt + ttlSeconds * 1000 - now)),
  };
}

/** The LRO events after which the offload resources list differs (`resources/list_changed`). */
export const OFFLOAD_LIST_EVENTS = ["OffloadCreated", "OffloadFileExpired"] as const;

/** The cache fields of the offload lists: private, and stale at once (every offload changes them). */
export const OFFLOAD_LIST_CACHE: Readonly<CacheFields> = Object.freeze({
  cacheScope: "private",
  ttlMs: 0,
});

/**
 * The host SDK's `ResourceTemplate` class (`@modelcontextprotocol/sdk/server/mcp.js`
 * on 1.x, `@modelcontextprotocol/server` on 2.x): an `McpServer` registers a
 * template only as an instance of its own SDK's class.
 */
export type ResourceTemplateClass<Template> = new (
  uriTemplate: string,
  callbacks: { list: () => Promise<ListResourcesResult> },
) => Template;

/** Options of {@link registerOffloadResources}. */
export interface RegisterOffloadResourcesOptions<Template = unknown> {
  /** Where the files are and how long they live. */
  config: Pick<OffloadConfig, "outputDir" | "ttlSeconds"> &
    Partial<Pick<OffloadConfig, "filePrefix">>;
  /** Largest page returned by one read, in bytes (default 1 MiB). */
  pageBytes?: number;
  /** Largest file served at all (default 256 MiB). */
  maxFileBytes?: number;
  /** Share the extractor's parsed-file cache (default: a new one). */
  cache?: OffloadFileCache;
  /** The shared offload store and principal (an offloader's `store`): files other instances wrote are fetched. */
  store?: OffloadStoreBinding | undefined;
  /** Events of the offloader: new and expired files notify `list_changed`. */
  events?: LroEvents;
  /** Clock, epoch ms. */
  now?: () => number;
  /** Resource URI and `_meta` key prefixes (default atlatl's). */
  names?: Partial<McpNames>;
  /** `McpServer` only (required there): the `ResourceTemplate` class of the host's SDK. */
  ResourceTemplate?: ResourceTemplateClass<Template>;
  /**
   * Low-level `Server` only: the resources the server already serves. Its
   * `resources/list`, `resources/templates/list` and `resources/read` handlers
   * are replaced by ones that serve them and the offload files.
   */
  upstream?: ResourcesUpstream;
}

/** What {@link registerOffloadResources} returns. */
export interface OffloadResourcesRegistration {
  /** The registered template (on an `McpServer`; undefined on a low-level `Server`). */
  template: Removable | undefined;
  /** Remove the template and stop listening to events. */
  close(): void;
}

interface LineIndex {
  /** Byte offset of each record line in the body, plus the body's end. */
  starts: number[];
}

const lineIndexes = new WeakMap<LoadedOffload, LineIndex>();

function indexLines(file: LoadedOffload): LineIndex {
  let index = lineIndexes.get(file);
  if (index) return index;
  const body = file.body;
  const starts: number[] = [];
  let pos = 0;
  while (pos < body.length) {
    starts.push(pos);
    const nl = body.indexOf(0x0a, pos);
    pos = nl < 0 ? body.length : nl + 1;
  }
  starts.push(body.length);
  index = { starts };
  lineIndexes.set(file, index);
  return index;
}

function invalid(message: string): JsonRpcError {
  return new JsonRpcError(INVALID_PARAMS, message);
}

function parseCount(value: string | null, name: string): number | undefined {
  if (value === null) return undefined;
  if (!/^\d{1,15}$/.test(value)) throw invalid(`${name} must be a non-negative integer`);
  return Number(value);
}

/** Name, offset and limit of an `atlatl://offload/...` URI. */
function parseOffloadUri(
  uri: URL,
  prefix: string,
): { name: string; offset: number; limit: number | undefined } {
  const text = uri.toString();
  if (!text.startsWith(prefix)) throw invalid(`not an offload resource: ${text}`);
  let name: string;
  try {
    name = decodeURIComponent(uri.pathname.replace(/^\//, ""));
  } catch {
    throw invalid("malformed offload resource URI");
  }
  const offset = parseCount(uri.searchParams.get("offset"), "offset") ?? 0;
  const limit = parseCount(uri.searchParams.get("limit"), "limit");
  if (limit === 0) throw invalid("limit must be at least 1");
  return { name, offset, limit };
}

/** The first MCP revision without `initialize` (2026-07-28): its connections may be notified at once. */
const FIRST_REVISION_WITHOUT_INITIALIZE = "2026-07-28";

/**
 * Whether the connected client may be sent notifications: it has sent
 * `notifications/initialized` (the SDK reports it through `oninitialized`,
 * chained here, not replaced; a new connection starts uninitialized again), or
 * the connection speaks a revision that has no `initialize` at all (an SDK 2.x
 * instance serving 2026-07-28, whose `list_changed` goes to the client's
 * `subscriptions/listen`). Registered after the handshake, the client counts as
 * initialized.
 */
function trackInitialized(low: ConnectionState): () => boolean {
  let initialized = low.transport !== undefined && low.getClientVersion() !== undefined;
  const onInitialized = low.oninitialized;
  low.oninitialized = () => {
    initialized = true;
    onInitialized?.();
  };
  const onClose = low.onclose;
  low.onclose = () => {
    initialized = false;
    onClose?.();
  };
  // Revisions are dates: a later one compares greater.
  const withoutHandshake = () =>
    (low.getNegotiatedProtocolVersion?.() ?? "") >= FIRST_REVISION_WITHOUT_INITIALIZE;
  return () => initialized || withoutHandshake();
}

/**
 * Register live offload files as resources on `server` (a resource template
 * with a `list` callback). Reads go through the same confinement as
 * `lro_extract`.
 */
export function registerOffloadResources<Template>(
  server: McpServerHost<Removable, Template>,
  options: RegisterOffloadResourcesOptions<Template> & {
    ResourceTemplate: ResourceTemplateClass<Template>;
  },
): OffloadResourcesRegistration;
export function registerOffloadResources(
  server: LowLevelServer,
  options: RegisterOffloadResourcesOptions,
): OffloadResourcesRegistration;
export function registerOffloadResources<Template>(
  server: McpHost<Removable, Template>,
  options: RegisterOffloadResourcesOptions<Template>,
): OffloadResourcesRegistration {
  const { config } = options;
  const names = mcpNames(options.names);
  const prefix = names.resourcePrefix;
  const meta = names.metaPrefix;
  const pageBytes = Math.max(1, options.pageBytes ?? 1 << 20);
  const maxFileBytes = options.maxFileBytes ?? 256 * 1024 * 1024;
  const cache = options.cache ?? new OffloadFileCache();
  const now = options.now ?? Date.now;

  const list = async (): Promise<ListResourcesResult> => {
    try {
      return {
        resources: await listOffloadResources({ config, store: options.store, prefix, now }),
      };
    } catch (err) {
      // A directory the writer refuses (a symlink): refused with its code.
      if (err instanceof LroError)
        throw new JsonRpcError(INTERNAL_ERROR, `${err.code}: ${err.message}`);
      throw err;
    }
  };

  const read = async (uri: URL): Promise<ReadResourceResult> => {
    const { name, offset, limit } = parseOffloadUri(uri, prefix);
    let file: LoadedOffload;
    let createdAt: number;
    try {
      const opened = await openOffloadFile(name, {
        outputDir: config.outputDir,
        ttlSeconds: config.ttlSeconds,
        now,
        filePrefix: config.filePrefix,
        resourcePrefix: prefix,
        store: options.store,
        refusedHint: `resources/read reads only offload files: use a URI as resources/list or an offload descriptor gave it (${prefix}{name})`,
      });
      createdAt = opened.createdAt;
      try {
        file = await cache.load(opened, maxFileBytes);
      } finally {
        await opened.handle.close().catch(() => {});
      }
    } catch (err) {
      // Missing, expired or not ours: not found, in LRO's words (the code says which).
      if (err instanceof LroError) throw resourceNotFound(uri.href, `${err.code}: ${err.message}`);
      throw err;
    }
    const { starts } = indexLines(file);
    const recordLines = starts.length - 1;
    const totalLines = recordLines + 1;
    if (offset >= totalLines) {
      throw invalid(
        `offset ${offset} is past the end: the file has ${totalLines} lines, so offset is at most ${totalLines - 1}`,
      );
    }
    const headerText = `${file.headerLine}\n`;
    let text = "";
    let bytes = 0;
    let line = offset;
    const end = Math.min(totalLines, limit === undefined ? totalLines : offset + limit);
    if (line === 0) {
      text = headerText;
      bytes = Buffer.byteLength(headerText);
      line = 1;
    }
    const first = line;
    while (line < end) {
      const size = (starts[line] as number) - (starts[line - 1] as number);
      if (line > offset && bytes + size > pageBytes) break;
      bytes += size;
      line++;
    }
    if (line > first) {
      const from = starts[first - 1] as number;
      const to = starts[line - 1] as number;
      text += file.body.subarray(from, to).toString("utf8");
    }
    const returned = line - offset;
    const pageMeta: Record<string, unknown> = {
      [`${meta}total_lines`]: totalLines,
      [`${meta}offset`]: offset,
      [`${meta}lines`]: returned,
    };
    if (line < totalLines) {
      // The next page, of the same size when one was asked for.
      const next = new URL(offloadResourceUri(file.path, prefix));
      next.searchParams.set("offset", String(line));
      if (limit !== undefined) next.searchParams.set("limit", String(limit));
      pageMeta[`${meta}next_uri`] = next.toString();
    }
    return {
      contents: [{ uri: uri.toString(), mimeType: OFFLOAD_MIME_TYPE, text, _meta: pageMeta }],
      ...offloadCacheFields(createdAt, config.ttlSeconds, now()),
    };
  };

  const title = "Offloaded result files";
  const description = `Large tool results written to JSONL while they live. Line 1 is the header; read pages with ?offset=N&limit=M (skip N lines, read M); a partial read's _meta has ${meta}next_uri.`;
  let template: Removable | undefined;
  let unmount: (() => void) | undefined;
  const highLevel = isMcpServerHost(server);
  if (highLevel) {
    const Template = options.ResourceTemplate;
    if (!Template) {
      throw new TypeError(
        "registerOffloadResources on an McpServer needs options.ResourceTemplate: the ResourceTemplate class of the server's SDK (@modelcontextprotocol/sdk/server/mcp.js or @modelcontextprotocol/server)",
      );
    }
    template = server.registerResource(
      OFFLOAD_RESOURCE_TEMPLATE_NAME,
      new Template(`${prefix}{name}`, { list }),
      { title, description, mimeType: OFFLOAD_MIME_TYPE },
      hostCallback(read),
    );
  } else {
    unmount = mountResources(
      server,
      {
        list: async () => (await list()).resources,
        template: {
          name: OFFLOAD_RESOURCE_TEMPLATE_NAME,
          uriTemplate: `${prefix}{name}`,
          title,
          description,
          mimeType: OFFLOAD_MIME_TYPE,
        },
        owns: (uri) => uri.startsWith(prefix),
        listCache: OFFLOAD_LIST_CACHE,
        read,
      },
      options.upstream,
    );
  }

  const unsubscribe: (() => void)[] = [];
  if (options.events) {
    const connected = () => (highLevel ? server.isConnected() : server.transport !== undefined);
    const initialized = trackInitialized(highLevel ? server.server : server);
    // Before the client's `initialized` a server may send it no notifications;
    // a change then is not lost: the client lists resources once initialized.
    const notify = () => {
      // Fire and forget: a closed transport must not become an unhandled rejection.
      if (connected() && initialized()) {
        Promise.resolve(server.sendResourceListChanged()).catch(() => {});
      }
    };
    for (const type of OFFLOAD_LIST_EVENTS) unsubscribe.push(options.events.on(type, notify));
  }
  return {
    template,
    close() {
      for (const u of unsubscribe) u();
      template?.remove();
      unmount?.();
    },
  };
}
