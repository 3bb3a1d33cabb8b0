/**
 * The offload store seam: where completed offload files are kept so that any
 * instance of a scaled-out server can read them. The local file system is the
 * default and costs nothing (files stay where the materializer wrote them); a
 * shared store (PostgreSQL, in the server package) receives every completed
 * JSONL file before it takes its name, and serves it to an instance that does
 * not have it on its disk. Files are immutable and their names unique (a ULID),
 * so a store only ever inserts, reads and deletes whole files.
 */

/** A file in a store: whose it is and its name (`atlatl-{operation}-{ULID}.jsonl`). */
export interface StoredOffloadKey {
  principal: string;
  name: string;
}

/** A stored file's name, size and lifetime (what a sweep deleted, or a listing shows). */
export interface StoredOffloadInfo {
  name: string;
  size: number;
  /** Epoch ms. */
  createdAt: number;
  expiresAt: number;
}

/** A file a sweep deleted: enough to report its expiry. */
export interface SweptOffload extends StoredOffloadKey, StoredOffloadInfo {}

/**
 * Most files {@link OffloadStore.list} returns (the newest): a principal's
 * listing stays one small answer however many small files its quota holds.
 */
export const OFFLOAD_STORE_LIST_LIMIT = 1000;

/** A stored file being read: its size, then its bytes in order. */
export interface StoredOffloadFile {
  size: number;
  /**
   * The whole file, read as it is consumed (never all of it in memory). Throws
   * `OFFLOAD_STORE_FAILED` when the bytes read do not match the stored size
   * and SHA-256 (e.g. the file was swept while being read).
   */
  chunks: AsyncIterable<Uint8Array>;
}

/** A completed file handed to {@link OffloadStore.publish}. */
export interface OffloadPublication extends StoredOffloadKey {
  /** The whole file (header line and records), in order. */
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  /** Bytes of the whole file: the store checks the chunks add up to it. */
  size: number;
  /** Creation time (the ULID's), epoch ms. */
  createdAt: number;
  /** When the file's time to live ends, epoch ms: a sweep after it deletes the file. */
  expiresAt: number;
}

/** Where offload files are kept (see the module comment). */
export interface OffloadStore {
  /** The configured name of the implementation (`local`, `postgres`). */
  readonly kind: string;
  /**
   * Files published here are readable by other instances. The engine calls
   * every store alike; one that is not shared keeps nothing it is given,
   * and finds, lists and sweeps nothing.
   */
  readonly shared: boolean;
  /**
   * Keep a completed file, all of it or nothing: when this resolves the file
   * is durable and readable by every instance; when it rejects nothing of it
   * is kept. Rejects with `LroError` `OFFLOAD_QUOTA_EXCEEDED` (naming the
   * setting) when the principal's live files would exceed its quota, or
   * `OFFLOAD_STORE_FAILED`.
   */
  publish(file: OffloadPublication): Promise<void>;
  /**
   * The principal's file, or undefined when the store has no such file
   * (never written, swept, or another principal's). Rejects with
   * `OFFLOAD_STORE_FAILED` when the store cannot answer.
   */
  fetch(key: StoredOffloadKey): Promise<StoredOffloadFile | undefined>;
  /**
   * The principal's live files (expiring after `now`, epoch ms), newest first,
   * at most {@link OFFLOAD_STORE_LIST_LIMIT}: what every instance lists as
   * resources. Rejects with `OFFLOAD_STORE_FAILED` when the store cannot answer.
   */
  list(principal: string, now: number): Promise<StoredOffloadInfo[]>;
  /** Delete a file early (an offload that failed after publishing); never rejects. */
  remove(key: StoredOffloadKey): Promise<void>;
  /**
   * Delete every file whose time to live ended at or before `now` and return
   * the ones this call deleted: across instances racing, each file is
   * returned to exactly one of them (which alone reports its expiry).
   */
  sweep(now: number): Promise<SweptOffload[]>;
  /** Rejects when the store is unreachable (a health check). */
  check(): Promise<void>;
  close(): Promise<void>;
}

/** A store and the principal whose files an offloader or a reader handles. */
export interface OffloadStoreBinding {
  readonly store: OffloadStore;
  readonly principal: string;
}

/** The binding of an offloader or reader, when its store is shared (else undefined: local only). */
export function sharedBinding(
  binding: OffloadStoreBinding | undefined,
): OffloadStoreBinding | undefined {
  return binding?.store.shared ? binding : undefined;
}
