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
  ListQuery,
  MemoryFilter,
  MemoryStore,
  RankedHit,
  RankQuery,
  Scoring,
  StoreCapabilities,
  TextHit,
  TextQuery,
  UpsertReport,
} from "../store.js";
import { filterSql, whereClause } from "./filter-sql.js";
import { plainToFts, queryInvalid } from "./fts-query.js";
import { migrate } from "./migrations.js";
import { fromRow, MEMORY_COLUMNS, type MemoryRow, type RowParams, toRow } from "./row.js";

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** Database file, or `:memory:` (tests). Parent directories are created 0700, the file 0600. */
  path: string;
  /** How long a write waits for another process's lock, in ms (default 5000). */
  busyTimeoutMs?: number;
}

/**
 * FTS5 column weights for bm25 (title, content, tags): a word in the title says
 * more about what a memory is than the same word deep in its content.
 */
const BM25 = "bm25(memories_fts, 4.0, 1.0, 2.0)";

/** Rows per page of {@link SqliteMemoryStore.iterate}. */
const ITERATE_PAGE = 500;

/** Upserts at least this large refresh the planner statistics afterwards. */
const ANALYZE_AFTER_ROWS = 1000;

const SORT_COLUMN = { created: "m.created_ms", modified: "m.modified_ms", title: "m.title" };

const INSERT_SQL = `INSERT INTO memories
  (id, memory_type, status, namespace, created_ms, modified_ms, confidence, created, modified, title, tags, content, doc)
  VALUES (@id, @memory_type, @status, @namespace, @created_ms, @modified_ms, @confidence, @created, @modified, @title, @tags, @content, @doc)`;

const UPDATE_SQL = `UPDATE memories SET
  memory_type = @memory_type, status = @status, namespace = @namespace,
  created_ms = @created_ms, modified_ms = @modified_ms, confidence = @confidence,
  created = @created, modified = @modified, title = @title, tags = @tags,
  content = @content, doc = @doc
  WHERE id = @id`;

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

/** The SQL score expression of {@link Scoring} over relevance expression `x`, with its params. */
function scoreSql(x: string, scoring: Scoring): { sql: string; params: unknown[] } {
  const { weights: w } = scoring;
  return {
    sql: `(? * ((${x}) / ((${x}) + ?)) + ? * coalesce(m.confidence, ?) + ? * pow(0.5, max(0.0, ? - m.modified_ms) / ?))`,
    params: [
      w.relevance,
      scoring.relevanceHalf,
      w.confidence,
      scoring.defaultConfidence,
      w.recency,
      scoring.asOf,
      scoring.halfLifeMs,
    ],
  };
}

/** A {@link MemoryStore} over one SQLite database. */
export class SqliteMemoryStore implements MemoryStore {
  readonly capabilities: StoreCapabilities = { fullText: "fts5", nativeQuerySyntax: true };
  /** The schema version after migration. */
  readonly schemaVersion: number;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private closed = false;

  constructor(db: Database.Database) {
    this.db = db;
    this.schemaVersion = migrate(db);
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
      this.stmt(INSERT_SQL).run(toRow(memory));
    });
  }

  async upsertMany(memories: readonly Memory[]): Promise<UpsertReport> {
    return this.guard("upsertMany", () => {
      const find = this.stmt("SELECT seq FROM memories WHERE id = ?").pluck();
      const insert = this.stmt(INSERT_SQL);
      const update = this.stmt(UPDATE_SQL);
      const report: UpsertReport = { inserted: 0, updated: 0 };
      this.db
        .transaction(() => {
          memories.forEach((memory, index) => {
            let row: RowParams;
            try {
              row = toRow(memory);
              if (find.get(row.id) === undefined) {
                insert.run(row);
                report.inserted++;
              } else {
                update.run(row);
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
      if (memories.length >= ANALYZE_AFTER_ROWS) this.analyze();
      return report;
    });
  }

  async update(memory: Memory): Promise<boolean> {
    return this.guard(`update ${JSON.stringify(memory?.id)}`, () => {
      return this.stmt(UPDATE_SQL).run(toRow(memory)).changes > 0;
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.guard(
      "delete",
      () => this.stmt("DELETE FROM memories WHERE id = ?").run(id).changes > 0,
    );
  }

  async list(query: ListQuery): Promise<Memory[]> {
    return this.guard("list", () => {
      const { where, params } = filterSql(query.filter);
      const col = SORT_COLUMN[query.sort];
      const asc = query.order === "asc";
      if (query.after) {
        where.push(`(${col}, m.id) ${asc ? ">" : "<"} (?, ?)`);
        params.push(query.after.key, query.after.id);
      }
      const dir = asc ? "ASC" : "DESC";
      const sql = `SELECT ${MEMORY_COLUMNS} FROM memories m${whereClause(where)} ORDER BY ${col} ${dir}, m.id ${dir} LIMIT ?`;
      const rows = this.stmt(sql).all(...params, query.limit) as MemoryRow[];
      return rows.map(fromRow);
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
      const { where, params } = filterSql(query.filter);
      where.unshift("memories_fts MATCH ?");
      params.unshift(match);
      if (query.horizon !== undefined) {
        where.push("m.seq <= ?");
        params.push(query.horizon);
      }
      // Inner: every match with its relevance; outer: keyset, order, limit. The
      // wide columns are read afterwards for the page only, so the sorter never
      // carries long content.
      const inner = `SELECT m.seq AS seq, m.id AS id, -${BM25} AS relevance
        FROM memories_fts CROSS JOIN memories m ON m.seq = memories_fts.rowid${whereClause(where)}`;
      let keyset = "";
      if (query.after) {
        keyset = " WHERE relevance < ? OR (relevance = ? AND id > ?)";
        params.push(query.after.value, query.after.value, query.after.id);
      }
      const sql = `SELECT seq, relevance FROM (${inner})${keyset} ORDER BY relevance DESC, id ASC LIMIT ?`;
      const rows = this.runMatch(sql, [...params, query.limit], query.text) as {
        seq: number;
        relevance: number;
      }[];
      const hits: TextHit[] = [];
      for (const r of rows) {
        const memory = this.readBySeq(r.seq);
        if (memory) hits.push({ memory, relevance: r.relevance });
      }
      return hits;
    });
  }

  async rank(query: RankQuery): Promise<RankedHit[]> {
    return this.guard("rank", () => {
      const text = query.text.trim();
      const match = text.length > 0 ? plainToFts(text) : undefined;
      if (text.length > 0 && match === undefined) {
        throw new StoreError(
          "QUERY_INVALID",
          `The query ${JSON.stringify(query.text)} has no searchable words; give at least one word, or an empty query to rank by confidence and recency.`,
        );
      }
      const { where, params } = filterSql(query.filter);
      if (query.horizon !== undefined) {
        where.push("m.seq <= ?");
        params.push(query.horizon);
      }
      let inner: string;
      let innerParams: unknown[];
      if (match !== undefined) {
        const score = scoreSql(`-${BM25}`, query.scoring);
        inner = `SELECT m.seq AS seq, m.id AS id, -${BM25} AS relevance, ${score.sql} AS score
          FROM memories_fts CROSS JOIN memories m ON m.seq = memories_fts.rowid
          ${whereClause(["memories_fts MATCH ?", ...where])}`;
        innerParams = [...score.params, match, ...params];
      } else {
        const score = scoreSql("0.0", query.scoring);
        inner = `SELECT m.seq AS seq, m.id AS id, 0.0 AS relevance, ${score.sql} AS score
          FROM memories m${whereClause(where)}`;
        innerParams = [...score.params, ...params];
      }
      let keyset = "";
      if (query.after) {
        keyset = " WHERE score < ? OR (score = ? AND id > ?)";
        innerParams.push(query.after.value, query.after.value, query.after.id);
      }
      const sql = `SELECT seq, relevance, score FROM (${inner})${keyset} ORDER BY score DESC, id ASC LIMIT ?`;
      const rows = this.runMatch(sql, [...innerParams, query.limit], query.text) as {
        seq: number;
        relevance: number;
        score: number;
      }[];
      const hits: RankedHit[] = [];
      for (const r of rows) {
        const memory = this.readBySeq(r.seq);
        if (memory) hits.push({ memory, score: r.score, relevance: r.relevance });
      }
      return hits;
    });
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
    let after: { key: number; id: string } | undefined;
    for (;;) {
      const page = this.guard("iterate", () => {
        const { where, params } = filterSql(filter);
        if (after) {
          where.push("(m.created_ms, m.id) > (?, ?)");
          params.push(after.key, after.id);
        }
        const sql = `SELECT m.created_ms AS created_ms, ${MEMORY_COLUMNS} FROM memories m${whereClause(where)} ORDER BY m.created_ms ASC, m.id ASC LIMIT ?`;
        return this.stmt(sql).all(...params, ITERATE_PAGE) as (MemoryRow & {
          created_ms: number;
        })[];
      });
      for (const row of page) yield fromRow(row);
      const last = page[page.length - 1];
      if (!last || page.length < ITERATE_PAGE) return;
      after = { key: last.created_ms, id: last.id };
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
    db.pragma("cache_size = -32000");
    return new SqliteMemoryStore(db);
  } catch (err) {
    db.close();
    throw storeError(err, `cannot prepare the memory database ${path}`);
  }
}
