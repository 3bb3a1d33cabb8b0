/**
 * The PostgreSQL {@link MemoryStore}: node-postgres with a connection pool, so
 * several atlatl instances (and several requests of one) share one database.
 *
 * Concurrency between instances: every write is one statement or one
 * transaction, and read-modify-write callers (`MemoryService.update`) pass the
 * memory they read as `expected`; the UPDATE then applies only if the row
 * still holds exactly that (compare-and-swap in its WHERE clause), else it
 * fails with `CONFLICT` and the caller re-reads and retries. Optimistic rather
 * than row locks because the seam has no transaction spanning `get` and
 * `update`: a lock would have to be held across a network round trip and the
 * caller's code, and contention on one memory is rare.
 */
import { createHash } from "node:crypto";
import type pg from "pg";
import Cursor from "pg-cursor";
import type { Memory } from "../../model/memory.js";
import { conflict, StoreError } from "../errors.js";
import { fromRow, type MemoryRow, rowReader } from "../memory-row.js";
import { QUERY_SYNTAX } from "../query-syntax.js";
import { whereClause } from "../sql.js";
import type {
  Fielded,
  ListedMemory,
  ListQuery,
  MemoryFilter,
  MemoryStore,
  RankedHit,
  RankQuery,
  ReadFields,
  StoreCapabilities,
  TextHit,
  TextQuery,
  UpdateOptions,
  UpsertReport,
  WholeQuery,
} from "../store.js";
import type { VectorIndex } from "../vector-index.js";
import { columnsOf, filterConditions, MEMORY_COLUMNS, Params } from "./filter-sql.js";
import { GIN_INDEXES } from "./migrations.js";
import { pgStoreError } from "./postgres-errors.js";
import { RankedReader } from "./ranked-reader.js";
import { TEXT_READ_SETTINGS } from "./ranked-sql.js";
import { CAST, type ListRow, listed, WRITE_COLUMNS, writeValues } from "./rows.js";
import { PostgresVectorIndex } from "./vector-index.js";
import { copyInsert, copyUpsert } from "./writer.js";

/** Rows per page of {@link PostgresMemoryStore.iterate}, and rows per fetch of whole-set reads. */
const PAGE = 1000;

const SORT_COLUMN = { created: "m.created_ms", modified: "m.modified_ms", title: "m.title_key" };

/** A {@link MemoryStore} over one PostgreSQL database (or schema). */
export class PostgresMemoryStore implements MemoryStore {
  static readonly capabilities: StoreCapabilities = {
    fullText: "tsvector",
    nativeQuerySyntax: true,
    querySyntax: QUERY_SYNTAX,
    listOffset: true,
  };
  readonly capabilities = PostgresMemoryStore.capabilities;
  private closed = false;

  private readonly ranked: RankedReader;

  constructor(
    private readonly pool: pg.Pool,
    /** `ownsPool`: end the pool on close (it was opened for this store alone). */
    private readonly options: { ownsPool?: boolean } = {},
  ) {
    this.ranked = new RankedReader({
      run: (context, fn) => this.run(context, fn),
      rows: (sql, params) => this.rows(sql, params),
      stream: (context, text, values, textRead) => this.stream(context, text, values, textRead),
      connect: () => this.pool.connect(),
    });
  }

  private async run<T>(context: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreError("CLOSED", "the memory store is closed");
    try {
      return await fn();
    } catch (err) {
      throw pgStoreError(err, context);
    }
  }

  private async rows<R extends pg.QueryResultRow>(
    sql: string,
    params: unknown[],
    prepared = false,
  ): Promise<R[]> {
    if (!prepared) return (await this.pool.query<R>(sql, params)).rows;
    return (await this.pool.query<R>({ name: statementName(sql), text: sql, values: params })).rows;
  }

  async get(id: string): Promise<Memory | undefined> {
    return this.run("get", async () => {
      const [row] = await this.rows<MemoryRow>(
        `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.id = $1`,
        [id],
        true,
      );
      return row ? fromRow(row) : undefined;
    });
  }

  async getMany(ids: readonly string[]): Promise<Memory[]> {
    return this.run("getMany", async () => {
      const rows = await this.rows<MemoryRow>(
        `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.id = ANY($1::text[])`,
        [ids],
      );
      const byId = new Map(rows.map((r) => [r.id, r]));
      const out: Memory[] = [];
      for (const id of ids) {
        const row = byId.get(id);
        if (row) out.push(fromRow(row));
      }
      return out;
    });
  }

  async insert(memory: Memory): Promise<void> {
    await this.run(`insert ${JSON.stringify(memory?.id)}`, async () => {
      const values = writeValues(memory);
      const placeholders = values.map((_, i) => `$${i + 1}`).join(", ");
      await this.pool.query(
        `INSERT INTO memories (${WRITE_COLUMNS.join(", ")}) VALUES (${placeholders})`,
        values,
      );
    });
  }

  async insertMany(memories: readonly Memory[]): Promise<void> {
    if (memories.length === 0) return;
    await this.run("insertMany", async () => {
      const client = await this.pool.connect();
      let failed: Error | undefined;
      try {
        await copyInsert(client, memories);
      } catch (err) {
        failed = err as Error;
        throw err;
      } finally {
        // A client whose statement failed (or timed out, still running) is dropped, not reused.
        client.release(failed);
      }
    });
  }

  async upsertMany(memories: readonly Memory[]): Promise<UpsertReport> {
    if (memories.length === 0) return { inserted: 0, updated: 0 };
    return this.run("upsertMany", async () => {
      const client = await this.pool.connect();
      let failed: Error | undefined;
      try {
        return await copyUpsert(client, memories);
      } catch (err) {
        failed = err as Error;
        throw err;
      } finally {
        // A client whose statement failed (or timed out, still running) is dropped, not reused.
        client.release(failed);
      }
    });
  }

  async update(memory: Memory, options: UpdateOptions = {}): Promise<boolean> {
    return this.run(`update ${JSON.stringify(memory?.id)}`, async () => {
      const values = writeValues(memory);
      const sets = WRITE_COLUMNS.map((c, i) => (c === "id" ? "" : `${c} = $${i + 1}`))
        .filter(Boolean)
        .join(", ");
      let sql = `UPDATE memories SET ${sets} WHERE id = $1`;
      if (options.expected) {
        // Compare-and-swap: the row must still hold what the caller read.
        const expected = writeValues(options.expected);
        const cols = WRITE_COLUMNS.filter((c) => c !== "id");
        const at = values.length;
        sql += ` AND (${cols.join(", ")}) IS NOT DISTINCT FROM (${cols.map((c, i) => `$${at + i + 1}::${CAST[c]}`).join(", ")})`;
        values.push(...expected.slice(1));
      }
      const result = await this.pool.query(sql, values);
      if ((result.rowCount ?? 0) > 0) return true;
      if (!options.expected) return false;
      const [exists] = await this.rows("SELECT 1 FROM memories WHERE id = $1", [values[0]]);
      if (exists) throw conflict(String(values[0]));
      return false;
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.run("delete", async () => {
      const result = await this.pool.query("DELETE FROM memories WHERE id = $1", [id]);
      return (result.rowCount ?? 0) > 0;
    });
  }

  private listSql(
    query: Omit<ListQuery, "limit">,
    limit: number | undefined,
    columns: string = MEMORY_COLUMNS,
  ): pg.QueryConfig {
    const p = new Params();
    const where = filterConditions(query.filter, p);
    const col = SORT_COLUMN[query.sort];
    const asc = query.order === "asc";
    if (query.after) {
      where.push(
        `(${col}, m.seq) ${asc ? ">" : "<"} (${p.add(query.after.key)}, ${p.add(query.after.seq)})`,
      );
    }
    const dir = asc ? "ASC" : "DESC";
    const cap = limit === undefined ? "" : ` LIMIT ${p.add(limit)}`;
    const skip = query.offset ? ` OFFSET ${p.add(query.offset)}` : "";
    return {
      text: `SELECT m.seq, ${col} AS sort_key, ${columns} FROM memories m${whereClause(where)} ORDER BY ${col} ${dir}, m.seq ${dir}${cap}${skip}`,
      values: p.values,
    };
  }

  async list<F extends ReadFields = "full">(
    query: ListQuery & { fields?: F | undefined },
  ): Promise<ListedMemory<Fielded<F>>[]> {
    return this.run("list", async () => {
      const { fields, ...rest } = query;
      const { text, values } = this.listSql(rest, rest.limit, columnsOf(fields));
      // Prepared: a keyset page has one good plan (walk the sort index), and
      // skipping the planner is a fair share of a sub-millisecond page.
      const rows = await this.rows<ListRow>(text, values ?? [], true);
      const read = rowReader(fields);
      return rows.map((row) => listed(row, read));
    });
  }

  search(query: TextQuery): Promise<TextHit[]> {
    return this.ranked.search(query);
  }

  rank(query: RankQuery): Promise<RankedHit[]> {
    return this.ranked.rank(query);
  }

  rankAll<F extends ReadFields = "full">(
    query: WholeQuery<RankQuery, F>,
  ): AsyncIterable<RankedHit<Fielded<F>>> {
    return this.ranked.rankAll(query);
  }

  searchAll<F extends ReadFields = "full">(
    query: WholeQuery<TextQuery, F>,
  ): AsyncIterable<TextHit<Fielded<F>>> {
    return this.ranked.searchAll(query);
  }

  async *listAll<F extends ReadFields = "full">(
    query: WholeQuery<ListQuery, F>,
  ): AsyncIterable<ListedMemory<Fielded<F>>> {
    const { fields, ...rest } = query;
    const { text, values } = this.listSql(rest, undefined, columnsOf(fields));
    const read = rowReader(fields);
    for await (const row of this.stream<ListRow>("list", text, values ?? [])) {
      yield listed(row, read);
    }
  }

  /**
   * Rows of `text` through a server-side cursor on one pooled connection,
   * fetched {@link PAGE} at a time: one consistent snapshot, bounded memory.
   * `textRead`: the statement has a text condition ({@link TEXT_READ_SETTINGS}).
   */
  private async *stream<R>(
    context: string,
    text: string,
    values: unknown[],
    textRead = false,
  ): AsyncIterable<R> {
    const client = await this.run(context, () => this.pool.connect());
    let cursor: Cursor<R> | undefined;
    try {
      const settings = textRead ? `; ${TEXT_READ_SETTINGS}` : "";
      await this.run(context, () =>
        client.query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY${settings}`),
      );
      cursor = client.query(new Cursor<R>(text, values));
      for (;;) {
        const batch = await this.run(context, () => (cursor as Cursor<R>).read(PAGE));
        yield* batch;
        if (batch.length < PAGE) break;
      }
    } finally {
      await cursor?.close().catch(() => undefined);
      // A connection that cannot even end its transaction (lost, stalled) is dropped, not reused.
      const ended = await client.query("COMMIT").then(
        () => true,
        () => false,
      );
      client.release(!ended);
    }
  }

  async count(filter?: MemoryFilter): Promise<number> {
    return this.run("count", async () => {
      const p = new Params();
      const where = filterConditions(filter, p);
      const [row] = await this.rows<{ n: number }>(
        `SELECT count(*)::int AS n FROM memories m${whereClause(where)}`,
        p.values,
      );
      return row?.n ?? 0;
    });
  }

  async *iterate(filter?: MemoryFilter): AsyncIterable<Memory> {
    let after: ListedMemory["position"] | undefined;
    for (;;) {
      const page = await this.list({ filter, sort: "created", order: "asc", limit: PAGE, after });
      for (const r of page) yield r.memory;
      const last = page[page.length - 1];
      if (!last || page.length < PAGE) return;
      after = last.position;
    }
  }

  async horizon(): Promise<number> {
    return this.run("horizon", async () => {
      const [row] = await this.rows<{ h: number }>(
        "SELECT coalesce(max(seq), 0)::int8 AS h FROM memories",
        [],
      );
      return row?.h ?? 0;
    });
  }

  /**
   * Merge the GIN pending lists into their indexes. Inserts append to a
   * pending list (fastupdate: an import is several times faster than with
   * in-place index updates) that is merged once it passes
   * gin_pending_list_limit (4 MB by default) or at vacuum; until then every
   * text query scans it whole: right after a 100,000-memory import the GIN
   * part of a two-word query took 22 ms instead of 5 ms. Merging what is left
   * takes tens of milliseconds. Not the owner of the indexes (a
   * read-write role on a shared schema): autovacuum merges them later.
   */
  async afterBulkWrite(): Promise<void> {
    await this.run("afterBulkWrite", async () => {
      try {
        const merges = GIN_INDEXES.map((name) => `gin_clean_pending_list('${name}'::regclass)`);
        await this.pool.query(`SELECT ${merges.join(", ")}`);
      } catch (err) {
        if ((err as { code?: string }).code !== "42501") throw err;
      }
    });
  }

  private vectorIndex: VectorIndex | undefined;

  vectors(): VectorIndex {
    this.vectorIndex ??= new PostgresVectorIndex(this.pool);
    return this.vectorIndex;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.options.ownsPool) await this.pool.end();
  }
}

/** A prepared statement's name: one per distinct SQL text, on every pooled connection. */
function statementName(sql: string): string {
  return `atlatl_${createHash("sha1").update(sql).digest("hex").slice(0, 16)}`;
}
