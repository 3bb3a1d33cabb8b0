/**
 * PostgreSQL's {@link VectorIndex}. With `pgvector` (the extension exists, or
 * `CREATE EXTENSION vector` succeeds when the table is first made) vectors
 * are a `vector(n)` column compared by `<=>` (cosine distance); otherwise a
 * plain `real[]` column and an exact scan (`array-scan.ts`): vectors are
 * stored at unit length, so the cosine similarity is the dot product.
 * The column's type, read back from the catalog, decides ever after, so a
 * store keeps its engine when pgvector is installed later (`atlatl embed
 * --reset` rebuilds it). Both are exact (no approximate index is built).
 * A memory's `doc` is rewritten in JavaScript, not through `jsonb`, which
 * would reorder the keys of its extensions.
 */
import type pg from "pg";
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
import { arrayScan } from "./array-scan.js";
import { ensureTables } from "./ensure-tables.js";
import { filterConditions, Params } from "./filter-sql.js";
import { inTransaction } from "./in-transaction.js";
import { pgStoreError } from "./postgres-errors.js";

const SPACE_TABLE = `CREATE TABLE IF NOT EXISTS vector_space (
  id         integer PRIMARY KEY CHECK (id = 1),
  model      text    NOT NULL,
  dimensions integer NOT NULL,
  created    timestamptz NOT NULL DEFAULT now()
)`;

const PGVECTOR: VectorCapabilities = { engine: "pgvector", exact: true };
const ARRAY: VectorCapabilities = { engine: "array", exact: true };

/** See the module comment. */
export class PostgresVectorIndex implements VectorIndex {
  private engine: VectorCapabilities = ARRAY;
  private ready = false;

  constructor(private readonly pool: pg.Pool) {}

  get capabilities(): VectorCapabilities {
    return this.engine;
  }

  private async run<T>(context: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof EmbeddingsError) throw err;
      throw pgStoreError(err, context);
    }
  }

  async open(
    space: EmbeddingSpace,
    options: { reset?: boolean; readOnly?: boolean } = {},
  ): Promise<void> {
    await this.run("open vectors", async () => {
      if (options.readOnly) {
        const stored = await this.space();
        this.ready = stored !== null && (await this.columnType()) !== null;
        if (stored) spaceMismatch(stored, space);
        if (this.ready) this.engine = (await this.columnType()) === "vector" ? PGVECTOR : ARRAY;
        return;
      }
      // Only a store about to create its vector table may install pgvector.
      const pgvector =
        options.reset || (await this.space()) === null ? await this.tryPgvector() : false;
      await ensureTables(this.pool, "vectors", SPACE_TABLE);
      await inTransaction(this.pool, async (client) => {
        await client.query(
          "SELECT pg_advisory_xact_lock(hashtextextended('atlatl.vectors.' || current_schema(), 0))",
        );
        const row = (await client.query("SELECT model, dimensions FROM vector_space WHERE id = 1"))
          .rows[0] as EmbeddingSpace | undefined;
        if (row && !options.reset) spaceMismatch(row, space);
        if (!row || options.reset) {
          if (await hasTable(client)) await clearRefs(client);
          await client.query("DROP TABLE IF EXISTS memory_vectors");
          const type = pgvector ? `vector(${space.dimensions})` : "real[]";
          await client.query(
            `CREATE TABLE memory_vectors (seq bigint PRIMARY KEY, hash text NOT NULL, vector ${type} NOT NULL)`,
          );
          await client.query(
            `INSERT INTO vector_space (id, model, dimensions) VALUES (1, $1, $2)
           ON CONFLICT (id) DO UPDATE SET model = EXCLUDED.model, dimensions = EXCLUDED.dimensions, created = now()`,
            [space.model, space.dimensions],
          );
        }
      });
      this.engine = (await this.columnType()) === "vector" ? PGVECTOR : ARRAY;
      this.ready = true;
    });
  }

  /** pgvector when it is installed, or installable by this login; false otherwise. */
  private async tryPgvector(): Promise<boolean> {
    const available = await this.pool.query(
      "SELECT installed_version FROM pg_available_extensions WHERE name = 'vector'",
    );
    if (available.rows.length === 0) return false;
    if (available.rows[0].installed_version !== null) return true;
    try {
      await this.pool.query("CREATE EXTENSION IF NOT EXISTS vector");
      return true;
    } catch {
      return false; // no privilege: the array column serves
    }
  }

  /** `vector`, `array` or null (no table), read from the catalog. */
  private async columnType(): Promise<"vector" | "array" | null> {
    const rows = (
      await this.pool.query(
        `SELECT t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
         WHERE a.attrelid = to_regclass('memory_vectors') AND a.attname = 'vector'`,
      )
    ).rows as { typname: string }[];
    if (rows.length === 0) return null;
    return rows[0]?.typname === "vector" ? "vector" : "array";
  }

  async space(): Promise<EmbeddingSpace | null> {
    return this.run("read the vector space", async () => {
      const exists = await this.pool.query("SELECT to_regclass('vector_space') IS NOT NULL AS t");
      if (!(exists.rows[0] as { t: boolean }).t) return null;
      const row = (await this.pool.query("SELECT model, dimensions FROM vector_space WHERE id = 1"))
        .rows[0] as EmbeddingSpace | undefined;
      return row ? { model: row.model, dimensions: row.dimensions } : null;
    });
  }

  /** A vector as the text its column type reads (`[x,y]` for pgvector, `{x,y}` for `real[]`). */
  private text(vector: Float32Array): string {
    const values = Array.from(vector).join(",");
    return this.engine === PGVECTOR ? `[${values}]` : `{${values}}`;
  }

  async put(entries: readonly VectorEntry[], ref: (id: string) => EmbeddingRef): Promise<number> {
    if (entries.length === 0) return 0;
    return this.run("store vectors", () =>
      inTransaction(this.pool, async (client) => {
        const rows = (
          await client.query("SELECT seq, id, doc FROM memories WHERE id = ANY($1) FOR UPDATE", [
            entries.map((e) => e.id),
          ])
        ).rows as { seq: number; id: string; doc: string }[];
        const byId = new Map(rows.map((r) => [r.id, r]));
        const stored = entries.filter((e) => byId.has(e.id));
        const seqs = stored.map((e) => (byId.get(e.id) as { seq: number }).seq);
        const type = this.engine === PGVECTOR ? "vector" : "real[]";
        await client.query(
          `INSERT INTO memory_vectors (seq, hash, vector)
         SELECT t.seq, t.hash, t.vector::${type} FROM unnest($1::bigint[], $2::text[], $3::text[]) AS t(seq, hash, vector)
         ON CONFLICT (seq) DO UPDATE SET hash = EXCLUDED.hash, vector = EXCLUDED.vector`,
          [seqs, stored.map((e) => e.hash), stored.map((e) => this.text(e.vector))],
        );
        const docs = stored.map((e) => {
          const doc = JSON.parse((byId.get(e.id) as { doc: string }).doc) as Record<
            string,
            unknown
          >;
          doc.embedding = ref(e.id);
          return JSON.stringify(doc);
        });
        await client.query(
          "UPDATE memories m SET doc = t.doc FROM unnest($1::bigint[], $2::text[]) AS t(seq, doc) WHERE m.seq = t.seq",
          [seqs, docs],
        );
        return stored.length;
      }),
    );
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (!this.ready) return;
    await this.run("remove vectors", async () => {
      for (const id of ids) {
        const row = (await this.pool.query("SELECT seq, doc FROM memories WHERE id = $1", [id]))
          .rows[0] as { seq: number; doc: string } | undefined;
        if (!row) continue;
        await this.pool.query("DELETE FROM memory_vectors WHERE seq = $1", [row.seq]);
        const doc = JSON.parse(row.doc) as Record<string, unknown>;
        if (!("embedding" in doc)) continue;
        delete doc.embedding;
        await this.pool.query("UPDATE memories SET doc = $1 WHERE seq = $2", [
          JSON.stringify(doc),
          row.seq,
        ]);
      }
    });
  }

  async candidates(afterSeq: number, limit: number): Promise<EmbedCandidate[]> {
    return this.run("read memories to embed", async () => {
      const vectors = this.ready
        ? "memory_vectors"
        : "(SELECT NULL::bigint AS seq, NULL::text AS hash)";
      return (
        await this.pool.query(
          `SELECT m.seq, m.id, m.title, m.content, v.hash FROM memories m
           LEFT JOIN ${vectors} v ON v.seq = m.seq
           WHERE m.seq > $1 ORDER BY m.seq LIMIT $2`,
          [afterSeq, limit],
        )
      ).rows as EmbedCandidate[];
    });
  }

  async nearest(query: NearestQuery): Promise<VectorHit[]> {
    if (!this.ready) return [];
    if (this.engine === ARRAY)
      return this.run("read nearest vectors", () => arrayScan(this.pool, query));
    return this.run("read nearest vectors", async () => {
      const p = new Params();
      const where = filterConditions(query.filter, p);
      if (query.horizon !== undefined) where.push(`m.seq <= ${p.add(query.horizon)}`);
      const q = p.add(this.text(query.vector));
      const similarity = `1 - (v.vector <=> ${q}::vector)`;
      const min = p.add(query.minSimilarity);
      const limit = p.add(query.limit);
      const rows = (
        await this.pool.query(
          `SELECT id, seq, similarity FROM (
             SELECT m.id, m.seq, ${similarity} AS similarity
             FROM memory_vectors v JOIN memories m ON m.seq = v.seq${whereClause(where)}
           ) s WHERE similarity >= ${min} ORDER BY similarity DESC, seq LIMIT ${limit}`,
          p.values,
        )
      ).rows as VectorHit[];
      return rows.map((r) => ({ id: r.id, seq: Number(r.seq), similarity: Number(r.similarity) }));
    });
  }

  async prune(): Promise<number> {
    if (!this.ready) return 0;
    return this.run("prune vectors", async () => {
      const r = await this.pool.query(
        "DELETE FROM memory_vectors v WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.seq = v.seq)",
      );
      return r.rowCount ?? 0;
    });
  }

  async count(): Promise<number> {
    if (!this.ready) return 0;
    return this.run("count vectors", async () => {
      const r = await this.pool.query(
        "SELECT count(*)::int AS n FROM memory_vectors v JOIN memories m ON m.seq = v.seq",
      );
      return (r.rows[0] as { n: number }).n;
    });
  }
}

/** Whether `memory_vectors` exists (in the current schema). */
async function hasTable(client: pg.PoolClient): Promise<boolean> {
  const r = await client.query("SELECT to_regclass('memory_vectors') IS NOT NULL AS t");
  return (r.rows[0] as { t: boolean }).t;
}

/** The `embedding` reference of every memory with a vector removed (before a reset drops them). */
async function clearRefs(client: pg.PoolClient): Promise<void> {
  const rows = (
    await client.query(
      "SELECT m.seq, m.doc FROM memories m JOIN memory_vectors v ON v.seq = m.seq FOR UPDATE OF m",
    )
  ).rows as { seq: number; doc: string }[];
  for (const r of rows) {
    const doc = JSON.parse(r.doc) as Record<string, unknown>;
    if (!("embedding" in doc)) continue;
    delete doc.embedding;
    await client.query("UPDATE memories SET doc = $1 WHERE seq = $2", [JSON.stringify(doc), r.seq]);
  }
}
