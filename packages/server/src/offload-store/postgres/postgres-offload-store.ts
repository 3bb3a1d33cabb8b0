/**
 * The shared offload store on PostgreSQL (see `offload-schema.ts` for the
 * tables): every instance of a scaled-out server publishes its completed
 * offload files here and fetches the ones it does not have on its disk.
 *
 * - Publish is one transaction: chunk rows, quota check, then the file row
 *   with the size and SHA-256 of what was streamed. A reader sees the file
 *   complete or not at all; a crash mid-way leaves nothing.
 * - The quota is per principal (bytes of its live files), checked under a
 *   transaction advisory lock on the principal taken after the upload and
 *   held to the commit, so two publishes of one principal on two instances
 *   cannot both slip under it, yet upload in parallel.
 * - A listing is the principal's newest live files, on an index of
 *   (principal, created_at): every instance lists what any instance wrote.
 * - The sweep is `DELETE ... RETURNING` with `SKIP LOCKED`: each expired file
 *   is returned to exactly one sweeping instance, which alone reports it.
 */
import { createHash } from "node:crypto";
import { LroError } from "@atlatl/lro";
import {
  OFFLOAD_STORE_LIST_LIMIT,
  type OffloadPublication,
  type StoredOffloadFile,
  type StoredOffloadInfo,
  type StoredOffloadKey,
  type SweptOffload,
} from "@atlatl/lro/node";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type pg from "pg";
import { OFFLOAD_STORE_SECTION } from "../../config/offload-store-config.js";
import { openPostgresTaskStore } from "../../mcp/tasks/postgres/open-postgres-task-store.js";
import type { TaskStore, TaskStoreOptions } from "../../mcp/tasks/task-store.js";
import type { ServedOffloadStore } from "../served-offload-store.js";
import { OFFLOAD_CHUNK_BYTES } from "./offload-schema.js";

/** The quota setting, named by every refusal. */
const QUOTA_SETTING = `${OFFLOAD_STORE_SECTION}.quota_bytes`;

/** Files deleted per sweep statement (a long backlog is swept in several). */
const SWEEP_BATCH = 1000;

/** Options of {@link PostgresOffloadStore}. */
export interface PostgresOffloadStoreOptions {
  /** Most bytes of live files one principal may keep. */
  quotaBytes: number;
  /** Clock, epoch ms (what "live" means for the quota). */
  now?: () => number;
}

function storeFailed(what: string, err: unknown): LroError {
  const message = err instanceof Error ? err.message : String(err);
  return new LroError("OFFLOAD_STORE_FAILED", `offload store: ${what}: ${message}`, {
    cause: err,
  });
}

/** Epoch ms as a timestamptz parameter. */
const asTimestamp = (ms: number): Date => new Date(ms);

/** Re-cut a byte stream into chunks of exactly `size` bytes (the last one shorter). */
async function* rechunk(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  size: number,
): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let held = 0;
  for await (const chunk of chunks) {
    let buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    while (held + buf.length >= size) {
      const take = size - held;
      parts.push(buf.subarray(0, take));
      yield parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size);
      parts = [];
      held = 0;
      buf = buf.subarray(take);
    }
    if (buf.length > 0) {
      parts.push(buf);
      held += buf.length;
    }
  }
  if (held > 0) yield Buffer.concat(parts, held);
}

/** Offload files in PostgreSQL tables (see the module comment). */
export class PostgresOffloadStore implements ServedOffloadStore {
  readonly kind = "postgres";
  readonly shared = true;
  private readonly now: () => number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PostgresOffloadStoreOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async publish(file: OffloadPublication): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw storeFailed(`cannot publish ${file.name}`, err);
    }
    let broken = false;
    // A connection lost mid-transaction errors the query in flight, or (between
    // queries) the client itself: either way the publish fails, never the process.
    const lost = () => {
      broken = true;
    };
    client.on("error", lost);
    try {
      await client.query("BEGIN");
      const hash = createHash("sha256");
      let seq = 0;
      let bytes = 0;
      for await (const chunk of rechunk(file.chunks, OFFLOAD_CHUNK_BYTES)) {
        hash.update(chunk);
        bytes += chunk.length;
        await client.query(
          "INSERT INTO offload_chunks (principal, name, seq, data) VALUES ($1, $2, $3, $4)",
          [file.principal, file.name, seq++, chunk],
        );
      }
      if (bytes !== file.size) {
        throw new Error(`${file.name} has ${bytes} bytes, ${file.size} were announced`);
      }
      // Last, so the principal's lock is held from the check to the commit only,
      // not for the upload: its publishes on every instance run side by side.
      await this.checkQuota(client, file);
      await client.query(
        `INSERT INTO offload_files (principal, name, size, sha256, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          file.principal,
          file.name,
          bytes,
          hash.digest(),
          asTimestamp(file.createdAt),
          asTimestamp(file.expiresAt),
        ],
      );
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      if (err instanceof LroError) throw err;
      throw storeFailed(`cannot publish ${file.name}`, err);
    } finally {
      client.off("error", lost);
      // A connection that could not even roll back is dropped, not reused.
      client.release(broken);
    }
  }

  /** Refuse when the principal's live files and this one would exceed the quota. */
  private async checkQuota(client: pg.PoolClient, file: OffloadPublication): Promise<void> {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 7431))", [
      file.principal,
    ]);
    const { rows } = await client.query<{ used: string }>(
      "SELECT coalesce(sum(size), 0)::text AS used FROM offload_files WHERE principal = $1 AND expires_at > $2",
      [file.principal, asTimestamp(this.now())],
    );
    const used = Number(rows[0]?.used ?? 0);
    const quota = this.options.quotaBytes;
    if (used + file.size > quota) {
      throw new LroError(
        "OFFLOAD_QUOTA_EXCEEDED",
        `offload file of ${file.size} bytes refused: this principal's live offload files hold ${used} bytes, and ${QUOTA_SETTING} allows ${quota}. Older files free their space when they expire; an operator may raise ${QUOTA_SETTING}`,
      );
    }
  }

  async fetch(key: StoredOffloadKey): Promise<StoredOffloadFile | undefined> {
    let rows: { size: string; sha256: Buffer }[];
    try {
      ({ rows } = await this.pool.query(
        "SELECT size::text AS size, sha256 FROM offload_files WHERE principal = $1 AND name = $2",
        [key.principal, key.name],
      ));
    } catch (err) {
      throw storeFailed(`cannot read ${key.name}`, err);
    }
    const file = rows[0];
    if (!file) return undefined;
    const size = Number(file.size);
    return { size, chunks: this.readChunks(key, size, file.sha256) };
  }

  /**
   * The file's chunks one query each, so a reader holds one chunk at a time.
   * Rows are immutable and deleted only whole (a sweep): a chunk gone or bytes
   * not matching the row's size and SHA-256 mean the file went while being read.
   */
  private async *readChunks(
    key: StoredOffloadKey,
    size: number,
    sha256: Buffer,
  ): AsyncGenerator<Buffer> {
    const hash = createHash("sha256");
    let bytes = 0;
    for (let seq = 0; bytes < size; seq++) {
      let rows: { data: Buffer }[];
      try {
        ({ rows } = await this.pool.query(
          "SELECT data FROM offload_chunks WHERE principal = $1 AND name = $2 AND seq = $3",
          [key.principal, key.name, seq],
        ));
      } catch (err) {
        throw storeFailed(`cannot read ${key.name}`, err);
      }
      const data = rows[0]?.data;
      if (!data) break;
      hash.update(data);
      bytes += data.length;
      yield data;
    }
    if (bytes !== size || !hash.digest().equals(sha256)) {
      throw storeFailed(
        `cannot read ${key.name}`,
        new Error("its bytes do not match its size and checksum (swept while being read?)"),
      );
    }
  }

  async list(principal: string, now: number): Promise<StoredOffloadInfo[]> {
    let rows: { name: string; size: string; created_at: Date; expires_at: Date }[];
    try {
      ({ rows } = await this.pool.query(
        `SELECT name, size::text AS size, created_at, expires_at FROM offload_files
          WHERE principal = $1 AND expires_at > $2
          ORDER BY created_at DESC, name DESC LIMIT $3`,
        [principal, asTimestamp(now), OFFLOAD_STORE_LIST_LIMIT],
      ));
    } catch (err) {
      throw storeFailed("cannot list files", err);
    }
    return rows.map((r) => ({
      name: r.name,
      size: Number(r.size),
      createdAt: r.created_at.getTime(),
      expiresAt: r.expires_at.getTime(),
    }));
  }

  async remove(key: StoredOffloadKey): Promise<void> {
    await this.pool
      .query("DELETE FROM offload_files WHERE principal = $1 AND name = $2", [
        key.principal,
        key.name,
      ])
      .catch(() => undefined);
  }

  async sweep(now: number): Promise<SweptOffload[]> {
    const swept: SweptOffload[] = [];
    for (;;) {
      let rows: {
        principal: string;
        name: string;
        size: string;
        created_at: Date;
        expires_at: Date;
      }[];
      try {
        ({ rows } = await this.pool.query(
          `DELETE FROM offload_files WHERE (principal, name) IN (
             SELECT principal, name FROM offload_files WHERE expires_at <= $1
              LIMIT $2 FOR UPDATE SKIP LOCKED)
           RETURNING principal, name, size::text AS size, created_at, expires_at`,
          [asTimestamp(now), SWEEP_BATCH],
        ));
      } catch (err) {
        throw storeFailed("cannot sweep expired files", err);
      }
      for (const r of rows) {
        swept.push({
          principal: r.principal,
          name: r.name,
          size: Number(r.size),
          createdAt: r.created_at.getTime(),
          expiresAt: r.expires_at.getTime(),
        });
      }
      if (rows.length < SWEEP_BATCH) return swept;
    }
  }

  async check(): Promise<void> {
    try {
      await this.pool.query("SELECT 1 FROM offload_files LIMIT 1");
    } catch (err) {
      throw storeFailed("unreachable", err);
    }
  }

  /** Tasks in the same database: any instance answers for a task another runs. */
  openTaskStore(options: TaskStoreOptions): Promise<TaskStore<CallToolResult>> {
    return openPostgresTaskStore<CallToolResult>({ pool: this.pool, ...options });
  }

  /** The pool is the instance's: its opener ends it. */
  async close(): Promise<void> {}
}
