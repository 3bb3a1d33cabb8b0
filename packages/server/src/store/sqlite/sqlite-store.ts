/**
 * The SQLite {@link MemoryStore}: better-sqlite3 (synchronous, in-process) behind
 * the async seam. One connection per store; statements are prepared once per
 * distinct SQL text and cached.
 */
import type Database from "better-sqlite3";
import type { Memory } from "../../model/memory.js";
import { conflict, StoreError } from "../errors.js";
import { fromRow, type MemoryRow, toRow } from "../memory-row.js";
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
import { filterSql } from "./filter-sql.js";
import { listTable } from "./list-plan.js";
import { type NarrowRows, RankedReader } from "./ranked-reader.js";
import { columnsOf, MEMORY_COLUMNS, rawReader } from "./rows.js";
import { storeError } from "./sqlite-errors.js";
import { StatementCache } from "./statements.js";
import { SqliteVectorIndex } from "./vector-index.js";
import { RowWriter, unchanged } from "./writer.js";

/** Rows per page of {@link SqliteMemoryStore.iterate}. */
const ITERATE_PAGE = 500;

/**
 * Rows per batch of the whole-set reads (`listAll`, the wide rows of
 * `rankAll`/`searchAll`): large enough that statement overhead vanishes, small
 * enough that a batch dies young (a batch that lives through two minor GCs is
 * promoted, and 100,000 rows' worth would pile up in the old generation).
 * Between batches no statement is open, so other calls on the connection proceed.
 */
const ALL_BATCH = 200;

const SORT_COLUMN = { created: "m.created_ms", modified: "m.modified_ms", title: "m.title" };

/** A {@link MemoryStore} over one SQLite database. */
export class SqliteMemoryStore implements MemoryStore {
  static readonly capabilities: StoreCapabilities = {
    fullText: "fts5",
    nativeQuerySyntax: true,
    querySyntax: QUERY_SYNTAX,
    listOffset: true,
  };
  readonly capabilities = SqliteMemoryStore.capabilities;
  /** The schema version after migration. */
  readonly schemaVersion: number;
  private readonly db: Database.Database;
  private readonly statements: StatementCache;
  private readonly writer: RowWriter;
  private readonly ranked: RankedReader;
  private closed = false;

  /** Use `db`, already identified as atlatl's and migrated (see {@link openSqliteStore}). */
  constructor(db: Database.Database, schemaVersion: number) {
    this.db = db;
    this.schemaVersion = schemaVersion;
    this.writer = new RowWriter(db);
    this.statements = new StatementCache(db);
    this.ranked = new RankedReader(this.statements);
  }

  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql);
  }

  private guard<T>(context: string, fn: () => T): T {
    if (this.closed) throw new StoreError("CLOSED", "the memory store is closed");
    try {
      return fn();
    } catch (err) {
      throw storeError(err, context);
    }
  }

  async get(id: string): Promise<Memory | undefined> {
    return this.guard("get", () => {
      const row = this.stmt(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.id = ?`).get(id) as
        | MemoryRow
        | undefined;
      return row ? fromRow(row) : undefined;
    });
  }

  async getMany(ids: readonly string[]): Promise<Memory[]> {
    return this.guard("getMany", () => {
      const s = this.stmt(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.id = ?`);
      const out: Memory[] = [];
      for (const id of ids) {
        const row = s.get(id) as MemoryRow | undefined;
        if (row) out.push(fromRow(row));
      }
      return out;
    });
  }

  async insert(memory: Memory): Promise<void> {
    this.guard(`insert ${JSON.stringify(memory?.id)}`, () => {
      const prepared = toRow(memory);
      this.db
        .transaction(() => {
          this.writer.touch();
          this.writer.insert(prepared);
        })
        .immediate();
    });
  }

  async insertMany(memories: readonly Memory[]): Promise<void> {
    if (memories.length === 0) return;
    this.guard("insertMany", () => {
      const prepared = memories.map((m) => toRow(m));
      this.db
        .transaction(() => {
          this.writer.touch();
          for (const row of prepared) this.writer.insert(row);
        })
        .immediate();
    });
  }

  async upsertMany(memories: readonly Memory[]): Promise<UpsertReport> {
    return this.guard("upsertMany", () => {
      const report: UpsertReport = { inserted: 0, updated: 0 };
      if (memories.length === 0) return report;
      this.db
        .transaction(() => {
          this.writer.touch();
          memories.forEach((memory, index) => {
            try {
              const prepared = toRow(memory);
              if (this.writer.tryInsert(prepared) !== undefined) {
                report.inserted++;
              } else {
                const stored = this.writer.find(prepared.row.id);
                if (stored === undefined) throw new Error("row vanished inside a transaction");
                this.writer.update(prepared, stored);
                report.updated++;
              }
            } catch (err) {
              const e = storeError(err, `memory #${index}`);
              throw new StoreError(e.code, `upsert failed, nothing stored: ${e.message}`, {
                cause: err,
              });
            }
          });
        })
        .immediate();
      return report;
    });
  }

  async update(memory: Memory, options: UpdateOptions = {}): Promise<boolean> {
    return this.guard(`update ${JSON.stringify(memory?.id)}`, () => {
      const prepared = toRow(memory);
      const expected = options.expected ? toRow(options.expected).row : undefined;
      return this.db
        .transaction(() => {
          const stored = this.writer.find(prepared.row.id);
          if (stored === undefined) return false;
          if (expected && !unchanged(expected, stored)) throw conflict(prepared.row.id);
          this.writer.touch();
          this.writer.update(prepared, stored);
          return true;
        })
        .immediate();
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.guard("delete", () =>
      this.db
        .transaction(() => {
          const stored = this.writer.find(id);
          if (stored === undefined) return false;
          this.writer.touch();
          this.writer.remove(stored);
          return true;
        })
        .immediate(),
    );
  }

  async list<F extends ReadFields = "full">(
    query: ListQuery & { fields?: F | undefined },
  ): Promise<ListedMemory<Fielded<F>>[]> {
    const { fields, ...rest } = query;
    return this.listRows(rest, fields);
  }

  /** A page of `list` with the memories' `fields`. */
  private listRows<F extends ReadFields>(
    query: ListQuery,
    fields: F | undefined,
  ): ListedMemory<Fielded<F>>[] {
    return this.guard("list", () => {
      const { where, params } = filterSql(query.filter);
      const col = SORT_COLUMN[query.sort];
      const asc = query.order === "asc";
      if (query.after) {
        where.push(`(${col}, m.seq) ${asc ? ">" : "<"} (?, ?)`);
        params.push(query.after.key, query.after.seq);
      }
      const dir = asc ? "ASC" : "DESC";
      const table = listTable((sql) => this.stmt(sql), query.filter, query.sort);
      const sql = `SELECT m.seq AS seq, ${col} AS sort_key, ${columnsOf(fields)} FROM ${table}${whereClause(where)} ORDER BY ${col} ${dir}, m.seq ${dir} LIMIT ? OFFSET ?`;
      const rows = this.stmt(sql)
        .raw(true)
        .all(...params, query.limit, query.offset ?? 0) as unknown[][];
      const read = rawReader(fields, 2);
      return rows.map((row) => ({
        memory: read(row),
        position: { key: row[1] as string | number, seq: row[0] as number },
      }));
    });
  }

  async search(query: TextQuery): Promise<TextHit[]> {
    return this.guard("search", () => this.ranked.search(query));
  }

  async rank(query: RankQuery): Promise<RankedHit[]> {
    return this.guard("rank", () => this.ranked.rank(query));
  }

  async *rankAll<F extends ReadFields = "full">(
    query: WholeQuery<RankQuery, F>,
  ): AsyncIterable<RankedHit<Fielded<F>>> {
    const rows = this.guard("rank", () => this.ranked.rankAllRows(query));
    for (const { memory, i } of this.wideRows(rows, query.fields)) {
      const value = rows.value[i] as number;
      yield {
        memory,
        score: value,
        relevance: rows.relevance[i] as number,
        position: { value, seq: rows.seq[i] as number },
      };
    }
  }

  async *searchAll<F extends ReadFields = "full">(
    query: WholeQuery<TextQuery, F>,
  ): AsyncIterable<TextHit<Fielded<F>>> {
    const rows = this.guard("search", () => this.ranked.searchAllRows(query));
    for (const { memory, i } of this.wideRows(rows, query.fields)) {
      const relevance = rows.relevance[i] as number;
      yield { memory, relevance, position: { value: relevance, seq: rows.seq[i] as number } };
    }
  }

  /**
   * The memories (their `fields`) of narrow rows, in their order, a batch of
   * wide rows at a time. Synchronous: an async layer costs a promise per row.
   */
  private *wideRows<F extends ReadFields>(
    rows: NarrowRows,
    fields: F | undefined,
  ): Iterable<{ memory: Fielded<F>; i: number }> {
    const read = rawReader(fields, 1);
    const columns = columnsOf(fields);
    for (let from = 0; from < rows.length; from += ALL_BATCH) {
      const to = Math.min(rows.length, from + ALL_BATCH);
      const batch = this.guard("read", () =>
        this.ranked.readManyBySeq(rows.seq, from, to, columns),
      );
      for (let i = from; i < to; i++) {
        const row = batch.get(rows.seq[i] as number);
        if (row) yield { memory: this.guard("read", () => read(row)), i };
      }
    }
  }

  async *listAll<F extends ReadFields = "full">(
    query: WholeQuery<ListQuery, F>,
  ): AsyncIterable<ListedMemory<Fielded<F>>> {
    const { fields, ...rest } = query;
    let after: ListQuery["after"];
    for (;;) {
      const page = this.listRows({ ...rest, limit: ALL_BATCH, after }, fields);
      yield* page;
      const last = page[page.length - 1];
      if (!last || page.length < ALL_BATCH) return;
      after = last.position;
    }
  }

  async count(filter?: MemoryFilter): Promise<number> {
    return this.guard("count", () => {
      const { where, params } = filterSql(filter);
      return this.stmt(`SELECT count(*) FROM memories m${whereClause(where)}`)
        .pluck()
        .get(...params) as number;
    });
  }

  /**
   * `PRAGMA data_version` (moves when another connection commits, whatever
   * the process) and this connection's own write count (which it does not
   * see): together they change on every write from anywhere. No table is
   * read, but the pragma opens a read transaction (file locks, a stat):
   * 2-3 us in a loop, the largest single cost of a cached REST page.
   */
  writeEpoch(): string {
    return this.guard("writeEpoch", () => {
      const external = this.stmt("PRAGMA data_version").pluck().get() as number;
      return `${external}.${this.writer.writes}`;
    });
  }

  async *iterate(filter?: MemoryFilter): AsyncIterable<Memory> {
    let after: { key: number; seq: number } | undefined;
    for (;;) {
      const page = this.guard("iterate", () => {
        const { where, params } = filterSql(filter);
        if (after) {
          where.push("(m.created_ms, m.seq) > (?, ?)");
          params.push(after.key, after.seq);
        }
        const table = listTable((sql) => this.stmt(sql), filter, "created");
        const sql = `SELECT m.seq AS seq, m.created_ms AS created_ms, ${MEMORY_COLUMNS} FROM ${table}${whereClause(where)} ORDER BY m.created_ms ASC, m.seq ASC LIMIT ?`;
        return this.stmt(sql).all(...params, ITERATE_PAGE) as (MemoryRow & {
          seq: number;
          created_ms: number;
        })[];
      });
      for (const row of page) yield fromRow(row);
      const last = page[page.length - 1];
      if (!last || page.length < ITERATE_PAGE) return;
      after = { key: last.created_ms, seq: last.seq };
    }
  }

  async horizon(): Promise<number> {
    return this.guard("horizon", () => {
      return (this.stmt("SELECT coalesce(max(seq), 0) FROM memories").pluck().get() as number) ?? 0;
    });
  }

  /** Refresh planner statistics (cheap when little changed). */
  private analyze(): void {
    this.db.pragma("analysis_limit = 1000");
    this.db.pragma("optimize");
  }

  private vectorIndex: VectorIndex | undefined;

  vectors(): VectorIndex {
    this.vectorIndex ??= new SqliteVectorIndex(this.db, () => {
      this.writer.writes++;
    });
    return this.vectorIndex;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      this.analyze();
    } catch {
      // Statistics are an optimisation; closing must not fail over them.
    }
    this.statements.clear();
    this.db.close();
    this.closed = true;
  }
}
