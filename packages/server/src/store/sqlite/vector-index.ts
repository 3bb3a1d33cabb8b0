/**
 * SQLite's {@link VectorIndex}: `sqlite-vec` loaded into the connection,
 * vectors as its float32 blobs in a plain table, nearest memories by its
 * `vec_distance_cosine` in one exact scan joined to `memories` (so every
 * filter of recall applies in the same statement). Not a `vec0` virtual
 * table: a file holding one could not be read, nor its memories deleted, by
 * a process that has not loaded the extension, and vec0's k-nearest scan is
 * exact as well. The tables are created on first open, outside the numbered
 * migrations: a store that never had `[embeddings]` has none.
 */
import type Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { EmbeddingsError } from "../../embeddings/embeddings-client.js";
import type { EmbeddingRef } from "../../model/memory.js";
import { whereClause } from "../sql.js";
import type {
  EmbedCandidate,
  EmbeddingSpace,
  NearestQuery,
  VectorCapabilities,
  VectorEntry,
  VectorHit,
  VectorIndex,
} from "../vector-index.js";
import { spaceMismatch } from "../vector-space.js";
import { filterSql } from "./filter-sql.js";
import { storeError } from "./sqlite-errors.js";

const TABLES = `
CREATE TABLE IF NOT EXISTS vector_space (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  model      TEXT    NOT NULL,
  dimensions INTEGER NOT NULL,
  created    TEXT    NOT NULL
);
CREATE TABLE IF NOT EXISTS memory_vectors (
  seq    INTEGER PRIMARY KEY,
  hash   TEXT    NOT NULL,
  vector BLOB    NOT NULL
);`;

/** See the module comment. */
export class SqliteVectorIndex implements VectorIndex {
  static readonly capabilities: VectorCapabilities = { engine: "sqlite-vec", exact: true };
  readonly capabilities = SqliteVectorIndex.capabilities;
  private loaded = false;
  private ready = false;

  /** `wrote` marks a write the store's own epoch must count (its cached reads hold docs). */
  constructor(
    private readonly db: Database.Database,
    private readonly wrote: () => void,
  ) {}

  private run<T>(context: string, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof EmbeddingsError) throw err;
      throw storeError(err, context);
    }
  }

  private hasTables(): boolean {
    return (
      this.db
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vector_space'")
        .get() !== undefined
    );
  }

  async open(
    space: EmbeddingSpace,
    options: { reset?: boolean; readOnly?: boolean } = {},
  ): Promise<void> {
    this.run("open vectors", () => {
      if (!this.loaded) {
        sqliteVec.load(this.db);
        this.loaded = true;
      }
      if (options.readOnly) {
        this.ready = this.hasTables();
        if (!this.ready) return;
        const stored = this.readSpace();
        if (stored) spaceMismatch(stored, space);
        return;
      }
      this.db
        .transaction(() => {
          this.db.exec(TABLES);
          const stored = this.readSpace();
          if (stored && options.reset) {
            this.clearAll();
          } else if (stored) {
            spaceMismatch(stored, space);
            return;
          }
          this.db
            .prepare(
              "INSERT OR REPLACE INTO vector_space (id, model, dimensions, created) VALUES (1, ?, ?, ?)",
            )
            .run(space.model, space.dimensions, new Date().toISOString());
        })
        .immediate();
      this.ready = true;
      this.wrote();
    });
  }

  private readSpace(): EmbeddingSpace | null {
    const row = this.db.prepare("SELECT model, dimensions FROM vector_space WHERE id = 1").get() as
      | EmbeddingSpace
      | undefined;
    return row ? { model: row.model, dimensions: row.dimensions } : null;
  }

  /** Every vector and every reference to one, gone. */
  private clearAll(): void {
    this.db.exec(
      "UPDATE memories SET doc = json_remove(doc, '$.embedding') WHERE seq IN (SELECT seq FROM memory_vectors); DELETE FROM memory_vectors; DELETE FROM vector_space;",
    );
  }

  async space(): Promise<EmbeddingSpace | null> {
    return this.run("read the vector space", () => (this.hasTables() ? this.readSpace() : null));
  }

  async put(entries: readonly VectorEntry[], ref: (id: string) => EmbeddingRef): Promise<number> {
    return this.run("store vectors", () => {
      const seqOf = this.db.prepare("SELECT seq FROM memories WHERE id = ?").pluck();
      const upsert = this.db.prepare(
        "INSERT OR REPLACE INTO memory_vectors (seq, hash, vector) VALUES (?, ?, ?)",
      );
      const setRef = this.db.prepare(
        "UPDATE memories SET doc = json_set(doc, '$.embedding', json(?)) WHERE seq = ?",
      );
      let stored = 0;
      this.db
        .transaction(() => {
          for (const e of entries) {
            const seq = seqOf.get(e.id) as number | undefined;
            if (seq === undefined) continue;
            upsert.run(seq, e.hash, blob(e.vector));
            setRef.run(JSON.stringify(ref(e.id)), seq);
            stored++;
          }
        })
        .immediate();
      this.wrote();
      return stored;
    });
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (!this.ready) return;
    this.run("remove vectors", () => {
      const seqOf = this.db.prepare("SELECT seq FROM memories WHERE id = ?").pluck();
      const drop = this.db.prepare("DELETE FROM memory_vectors WHERE seq = ?");
      const clear = this.db.prepare(
        "UPDATE memories SET doc = json_remove(doc, '$.embedding') WHERE seq = ?",
      );
      this.db
        .transaction(() => {
          for (const id of ids) {
            const seq = seqOf.get(id) as number | undefined;
            if (seq === undefined) continue;
            drop.run(seq);
            clear.run(seq);
          }
        })
        .immediate();
      this.wrote();
    });
  }

  async candidates(afterSeq: number, limit: number): Promise<EmbedCandidate[]> {
    return this.run(
      "read memories to embed",
      () =>
        this.db
          .prepare(
            `SELECT m.seq, m.id, m.title, m.content, v.hash FROM memories m
           LEFT JOIN memory_vectors v ON v.seq = m.seq
           WHERE m.seq > ? ORDER BY m.seq LIMIT ?`,
          )
          .all(afterSeq, limit) as EmbedCandidate[],
    );
  }

  async nearest(query: NearestQuery): Promise<VectorHit[]> {
    if (!this.ready) return [];
    return this.run("read nearest vectors", () => {
      const f = filterSql(query.filter);
      const where = [...f.where, "vec_distance_cosine(v.vector, ?) <= ?"];
      const params: unknown[] = [...f.params, blob(query.vector), 1 - query.minSimilarity];
      if (query.horizon !== undefined) {
        where.push("m.seq <= ?");
        params.push(query.horizon);
      }
      const rows = this.db
        .prepare(
          `SELECT m.id, m.seq, vec_distance_cosine(v.vector, ?) AS distance
           FROM memory_vectors v JOIN memories m ON m.seq = v.seq${whereClause(where)}
           ORDER BY distance, m.seq LIMIT ?`,
        )
        .all(blob(query.vector), ...params, query.limit) as {
        id: string;
        seq: number;
        distance: number;
      }[];
      return rows.map((r) => ({ id: r.id, seq: r.seq, similarity: 1 - r.distance }));
    });
  }

  async prune(): Promise<number> {
    if (!this.ready) return 0;
    return this.run("prune vectors", () => {
      const n = this.db
        .prepare("DELETE FROM memory_vectors WHERE seq NOT IN (SELECT seq FROM memories)")
        .run().changes;
      if (n > 0) this.wrote();
      return n;
    });
  }

  async count(): Promise<number> {
    if (!this.ready) return 0;
    return this.run(
      "count vectors",
      () =>
        this.db
          .prepare("SELECT count(*) FROM memory_vectors v JOIN memories m ON m.seq = v.seq")
          .pluck()
          .get() as number,
    );
  }
}

/** A vector as sqlite-vec's float32 blob. */
function blob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}
