/**
 * The SQLite {@link MemoryStore}: better-sqlite3 (synchronous, in-process) behind
 * the async seam. One connection per store; statements are prepared once per
 * distinct SQL text and cached.
 */
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import type { Memory } from "../../model/memory.js";
import { StoreError } from "../errors.js";
import type {
  ListedMemory,
  ListQuery,
  MemoryFilter,
  MemoryStore,
  RankedHit,
  RankPosition,
  RankQuery,
  Scoring,
  StoreCapabilities,
  TextHit,
  TextQuery,
  UpsertReport,
} from "../store.js";
import { filterSql, whereClause } from "./filter-sql.js";
import { plainPhrases, plainToFts, queryInvalid } from "./fts-query.js";
import { listTable } from "./list-plan.js";
import { migrate } from "./migrations.js";
import { type PrunePlan, planPrune } from "./rank-prune.js";
import { type RankedSelect, rankedSelect } from "./ranked-sql.js";
import { fromRow, MEMORY_COLUMNS, type MemoryRow, toRow } from "./row.js";
import { RowWriter } from "./writer.js";

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** Database file, or `:memory:` (tests). Parent directories are created 0700, the file 0600. */
  path: string;
  /** How long a write waits for another process's lock, in ms (default 5000). */
  busyTimeoutMs?: number;
}

/** Phrase counts remembered for candidate pruning (cleared when full). */
const HIT_CACHE_SIZE = 512;

/** Rows per page of {@link SqliteMemoryStore.iterate}. */
const ITERATE_PAGE = 500;

const SORT_COLUMN = { created: "m.created_ms", modified: "m.modified_ms", title: "m.title" };

function isSqliteError(err: unknown): err is Error & { code: string } {
  return err instanceof Error && typeof (err as { code?: unknown }).code === "string";
}

/** Map a driver failure to a {@link StoreError}; StoreErrors pass through. */
function storeError(err: unknown, context: string): StoreError {
  if (err instanceof StoreError) return err;
  if (err instanceof TypeError && /database connection is not open/.test(err.message)) {
    return new StoreError("CLOSED", "the memory store is closed", { cause: err });
  }
  if (isSqliteError(err)) {
    if (err.code === "SQLITE_CONSTRAINT_UNIQUE" && /memories\.id/.test(err.message)) {
      return new StoreError("DUPLICATE_ID", `${context}: a memory with this id exists`, {
        cause: err,
      });
    }
    if (err.code.startsWith("SQLITE_CONSTRAINT")) {
      return new StoreError("INVALID_MEMORY", `${context}: ${err.message}`, { cause: err });
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  return new StoreError("BACKEND", `${context}: ${message}`, { cause: err });
}

interface RankedRow {
  seq: number;
  relevance: number;
  score?: number;
}

/** A {@link MemoryStore} over one SQLite database. */
export class SqliteMemoryStore implements MemoryStore {
  readonly capabilities: StoreCapabilities = { fullText: "fts5", nativeQuerySyntax: true };
  /** The schema version after migration. */
  readonly schemaVersion: number;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly writer: RowWriter;
  private readonly hitCache = new Map<string, number>();
  private closed = false;

  constructor(db: Database.Database) {
    this.db = db;
    this.schemaVersion = migrate(db);
    this.writer = new RowWriter(db);
  }

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  private guard<T>(context: string, fn: () => T): T {
    if (this.closed) throw new StoreError("CLOSED", "the memory store is closed");
    try {
      return fn();
    } catch (err) {
      throw storeError(err, context);
    }
  }

  private readBySeq(seq: number): Memory | undefined {
    const row = this.stmt(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.seq = ?`).get(seq) as
      | MemoryRow
      | undefined;
    return row ? fromRow(row) : undefined;
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

  async upsertMany(memories: readonly Memory[]): Promise<UpsertReport> {
    return this.guard("upsertMany", () => {
      const report: UpsertReport = { inserted: 0, updated: 0 };
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

  async update(memory: Memory): Promise<boolean> {
    return this.guard(`update ${JSON.stringify(memory?.id)}`, () => {
      const prepared = toRow(memory);
      return this.db
        .transaction(() => {
          const stored = this.writer.find(prepared.row.id);
          if (stored === undefined) return false;
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

  async list(query: ListQuery): Promise<ListedMemory[]> {
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
      const sql = `SELECT m.seq AS seq, ${col} AS sort_key, ${MEMORY_COLUMNS} FROM ${table}${whereClause(where)} ORDER BY ${col} ${dir}, m.seq ${dir} LIMIT ?`;
      const rows = this.stmt(sql).all(...params, query.limit) as (MemoryRow & {
        seq: number;
        sort_key: string | number;
      })[];
      return rows.map((row) => ({
        memory: fromRow(row),
        position: { key: row.sort_key, seq: row.seq },
      }));
    });
  }

  async search(query: TextQuery): Promise<TextHit[]> {
    return this.guard("search", () => {
      const match = query.syntax === "plain" ? plainToFts(query.text) : query.text;
      if (match === undefined || match.trim().length === 0) {
        throw new StoreError(
          "QUERY_INVALID",
          `The query ${JSON.stringify(query.text)} has no searchable words; give at least one word.`,
        );
      }
      const select: RankedSelect = { match, filter: query.filter, horizon: query.horizon };
      const epoch = this.epoch();
      const position = this.resolvePosition("relevance", select, query.after, query.text, epoch);
      const rows = this.rankedRows("relevance", select, position, query.limit, query.text);
      return this.withMemories(rows, (memory, r) => ({
        memory,
        relevance: r.relevance,
        position: { value: r.relevance, seq: r.seq, epoch },
      }));
    });
  }

  async rank(query: RankQuery): Promise<RankedHit[]> {
    return this.guard("rank", () => {
      const text = query.text.trim();
      const phrases = text.length > 0 ? plainPhrases(text) : [];
      if (text.length > 0 && phrases.length === 0) {
        throw new StoreError(
          "QUERY_INVALID",
          `The query ${JSON.stringify(query.text)} has no searchable words; give at least one word, or an empty query to rank by confidence and recency.`,
        );
      }
      const select: RankedSelect = {
        match: phrases.length > 0 ? phrases.join(" OR ") : undefined,
        filter: query.filter,
        horizon: query.horizon,
        scoring: query.scoring,
      };
      const epoch = this.epoch();
      const position = this.resolvePosition("score", select, query.after, query.text, epoch);
      let rows: RankedRow[] | undefined;
      const plan = phrases.length > 0 ? this.planPrune(phrases, query.scoring, epoch) : undefined;
      if (plan) {
        const pruned = this.rankedRows(
          "score",
          { ...select, within: plan.within },
          position,
          query.limit,
          query.text,
        );
        const last = pruned[pruned.length - 1];
        // Exact only when the page is full and beats every memory outside P.
        if (pruned.length === query.limit && last && (last.score ?? 0) > plan.restBound + 1e-12) {
          rows = pruned;
        }
      }
      rows ??= this.rankedRows("score", select, position, query.limit, query.text);
      return this.withMemories(rows, (memory, r) => ({
        memory,
        score: r.score ?? 0,
        relevance: r.relevance,
        position: { value: r.score ?? 0, seq: r.seq, epoch },
      }));
    });
  }

  /** The current write epoch (see `store_meta`). */
  private epoch(): number {
    return this.stmt("SELECT value FROM store_meta WHERE key = 'epoch'").pluck().get() as number;
  }

  /** Rows matching `phrase`, cached per write epoch (the next page asks again). */
  private phraseHits(phrase: string, epoch: number): number {
    const key = `${epoch}\u0000${phrase}`;
    let n = this.hitCache.get(key);
    if (n === undefined) {
      n = this.stmt("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?")
        .pluck()
        .get(phrase) as number;
      if (this.hitCache.size >= HIT_CACHE_SIZE) this.hitCache.clear();
      this.hitCache.set(key, n);
    }
    return n;
  }

  /** Counts per phrase and the bounds {@link planPrune} needs. */
  private planPrune(phrases: string[], scoring: Scoring, epoch: number): PrunePlan | undefined {
    if (phrases.length > 8) return undefined; // long pasted text: not worth counting
    const hits = phrases.map((p) => this.phraseHits(p, epoch));
    const bounds = this.stmt(
      "SELECT (SELECT coalesce(max(seq), 0) FROM memories) AS seq, (SELECT max(modified_ms) FROM memories) AS modified",
    ).get() as { seq: number; modified: number | null };
    return planPrune({
      phrases,
      hits,
      rowsUpperBound: bounds.seq,
      latestModified: bounds.modified ?? undefined,
      scoring,
    });
  }

  /**
   * Where a page continues: after the anchor memory at its *current* value when
   * it is still a hit (else after a previous hit of the page): bm25 depends on
   * corpus statistics, so values drift as memories are added or removed, and
   * comparing against the stale value would repeat or skip hits near the page
   * boundary. Only when no anchor is left does the stored value serve. While
   * nothing was written since the position was issued, it is exact as it is.
   */
  private resolvePosition(
    key: "relevance" | "score",
    select: RankedSelect,
    after: RankPosition | undefined,
    text: string,
    epoch: number,
  ): { value: number; seq: number } | undefined {
    if (!after) return undefined;
    if (after.epoch === epoch) return { value: after.value, seq: after.seq };
    for (const seq of [after.seq, ...(after.previous ?? [])]) {
      const anchor = rankedSelect({ ...select, onlySeq: seq });
      const rows = this.runMatch(
        `SELECT ${key} AS v FROM (${anchor.sql})`,
        anchor.params,
        text,
      ) as {
        v: number;
      }[];
      const current = rows[0]?.v;
      if (current !== undefined) return { value: current, seq };
    }
    return { value: after.value, seq: after.seq };
  }

  /**
   * Hits of `select` ordered by `key` desc then seq asc, strictly after
   * `position`. The SELECT yields narrow rows; the wide columns are read for
   * the page only, so the sorter never carries long content.
   */
  private rankedRows(
    key: "relevance" | "score",
    select: RankedSelect,
    position: { value: number; seq: number } | undefined,
    limit: number,
    text: string,
  ): RankedRow[] {
    const inner = rankedSelect(select);
    const params = [...inner.params];
    let keyset = "";
    if (position) {
      keyset = ` WHERE ${key} < ? OR (${key} = ? AND seq > ?)`;
      params.push(position.value, position.value, position.seq);
    }
    const columns = key === "score" ? "seq, relevance, score" : "seq, relevance";
    const sql = `SELECT ${columns} FROM (${inner.sql})${keyset} ORDER BY ${key} DESC, seq ASC LIMIT ?`;
    return this.runMatch(sql, [...params, limit], text) as RankedRow[];
  }

  private withMemories<T>(rows: RankedRow[], make: (memory: Memory, row: RankedRow) => T): T[] {
    const out: T[] = [];
    for (const r of rows) {
      const memory = this.readBySeq(r.seq);
      if (memory) out.push(make(memory, r));
    }
    return out;
  }

  /** Run a statement with a MATCH; FTS5 parse errors surface here, at step time. */
  private runMatch(sql: string, params: unknown[], text: string): unknown[] {
    const s = this.stmt(sql);
    try {
      return s.all(...params);
    } catch (err) {
      if (isSqliteError(err) && err.code === "SQLITE_ERROR") {
        throw queryInvalid(text, err.message, err);
      }
      throw err;
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

/**
 * Open (creating if needed) the SQLite store at `options.path`: WAL journal,
 * `synchronous=NORMAL` (a killed process loses no committed transaction),
 * migrations applied. Parent directories are created 0700 and a new database
 * file 0600; SQLite gives its `-wal`/`-shm` files the database file's mode.
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteMemoryStore> {
  const memory = options.path === ":memory:";
  const path = memory ? options.path : resolve(options.path);
  let db: Database.Database;
  try {
    if (!memory) {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      try {
        closeSync(openSync(path, "wx", 0o600));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
    }
    db = new Database(path);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new StoreError("OPEN_FAILED", `cannot open the memory database ${path}: ${message}`, {
      cause: err,
    });
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    if (!memory) db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("temp_store = MEMORY");
    // 64 MiB of page cache and a larger WAL between checkpoints: bulk imports
    // insert into several indexes at random positions, and every checkpoint
    // is an fsync (measured: +40 % import throughput at 100,000 memories).
    db.pragma("cache_size = -65536");
    db.pragma("wal_autocheckpoint = 10000");
    return new SqliteMemoryStore(db);
  } catch (err) {
    db.close();
    throw storeError(err, `cannot prepare the memory database ${path}`);
  }
}
