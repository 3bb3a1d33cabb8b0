/**
 * Encoded bodies of REST list pages, reused while the store is unchanged.
 *
 * Correct for every deployment because validity is the store's write epoch
 * (`MemoryStore.writeEpoch`), which moves on every write from any process: an
 * `atlatl import` or a second server on the same SQLite file is seen on the
 * next request. A store without a cheap epoch (PostgreSQL) gets no cache.
 * Entries are keyed by the request's raw query string: a page depends on
 * nothing else (not the token: every token sees the same memories), and a key
 * is only stored after that query validated and was answered 200.
 */

/** Entries kept (least recently used dropped first). */
const PAGE_CACHE_ENTRIES = 256;
/** Bytes kept across entries; a body larger than an eighth of it is never kept. */
const PAGE_CACHE_BYTES = 16 * 1024 * 1024;

export class PageCache {
  private readonly entries = new Map<string, Uint8Array>();
  private bytes = 0;
  private epoch: string | undefined;

  constructor(private readonly writeEpoch: () => string) {}

  /** The current epoch; a moved epoch empties the cache. */
  private sync(): string {
    const epoch = this.writeEpoch();
    if (epoch !== this.epoch) {
      this.entries.clear();
      this.bytes = 0;
      this.epoch = epoch;
    }
    return epoch;
  }

  /** The body kept for `key`, if the store has not changed since it was built. */
  get(key: string): Uint8Array | undefined {
    this.sync();
    const body = this.entries.get(key);
    if (body) {
      // Most recently used last: Map iteration order is the eviction order.
      this.entries.delete(key);
      this.entries.set(key, body);
    }
    return body;
  }

  /**
   * `build()`'s body for `key`, kept for later requests. The epoch is read
   * before the build and checked after it: a write in between leaves the
   * body unkept (it may predate the write).
   */
  async fill(key: string, build: () => Promise<string>): Promise<Uint8Array> {
    const before = this.sync();
    const body = Buffer.from(await build(), "utf8");
    if (body.byteLength <= PAGE_CACHE_BYTES / 8 && this.sync() === before) {
      const old = this.entries.get(key);
      if (old) {
        this.entries.delete(key);
        this.bytes -= old.byteLength;
      }
      this.entries.set(key, body);
      this.bytes += body.byteLength;
      for (const [k, b] of this.entries) {
        if (this.entries.size <= PAGE_CACHE_ENTRIES && this.bytes <= PAGE_CACHE_BYTES) break;
        this.entries.delete(k);
        this.bytes -= b.byteLength;
      }
    }
    return body;
  }
}

/**
 * True when the request asks for a fresh read (`Cache-Control: no-cache` or
 * `no-store`, RFC 9111 section 5.2.1): the page is then read from the store.
 */
export function wantsFresh(cacheControl: string | undefined): boolean {
  return cacheControl !== undefined && /\bno-(cache|store)\b/i.test(cacheControl);
}
