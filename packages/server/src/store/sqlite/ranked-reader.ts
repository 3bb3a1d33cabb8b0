/**
 * Ranked reads of the SQLite store: full-text search by raw relevance and
 * recall by combined score, with keyset positions re-anchored across writes
 * and exact candidate pruning (see `rank-prune.ts`).
 */
import type { Memory } from "../../model/memory.js";
import { fromRow, type MemoryRow } from "../memory-row.js";
import { parseQuery } from "../query-syntax.js";
import { type Keyset, resumeAfter } from "../ranking.js";
import type {
  MemoryFilter,
  RankedHit,
  RankPosition,
  RankQuery,
  Scoring,
  TextHit,
  TextQuery,
} from "../store.js";
import {
  combinationsByWeight,
  minCoverage,
  termWeights,
  type WeightedTerm,
} from "../term-coverage.js";
import { type PrunePlan, planPrune } from "./rank-prune.js";
import { bestCoverageSelect, existsSelect, type RankedSelect, rankedSelect } from "./ranked-sql.js";
import { MEMORY_COLUMNS } from "./rows.js";
import { isSqliteError } from "./sqlite-errors.js";
import type { StatementCache } from "./statements.js";
import { clausesToFts, plainPhrases, queryInvalid } from "./text-query.js";

/** Phrase counts remembered for candidate pruning (cleared when full). */
const HIT_CACHE_SIZE = 512;

interface RankedRow {
  seq: number;
  relevance: number;
  score?: number;
}

/** Hits as parallel typed arrays: sequence number, raw relevance, ordering value. */
export class NarrowRows {
  length = 0;
  seq: Float64Array = new Float64Array(1024);
  relevance: Float64Array = new Float64Array(1024);
  value: Float64Array = new Float64Array(1024);

  push(seq: number, relevance: number, value: number): void {
    if (this.length === this.seq.length) {
      this.seq = grow(this.seq);
      this.relevance = grow(this.relevance);
      this.value = grow(this.value);
    }
    this.seq[this.length] = seq;
    this.relevance[this.length] = relevance;
    this.value[this.length] = value;
    this.length++;
  }
}

function grow(a: Float64Array): Float64Array {
  const b = new Float64Array(a.length * 2);
  b.set(a);
  return b;
}

/** Search and rank over one connection's statements. Synchronous; the store wraps it. */
export class RankedReader {
  private readonly hitCache = new Map<string, number>();

  constructor(private readonly statements: StatementCache) {}

  search(query: TextQuery): TextHit[] {
    const select = this.searchSelect(query);
    if (!select) return [];
    const epoch = this.epoch();
    const position = this.resolvePosition("relevance", select, query.after, query.text, epoch);
    const rows = this.rankedRows("relevance", select, position, query.limit, query.text);
    return this.withMemories(rows, (memory, r) => ({
      memory,
      relevance: r.relevance,
      position: { value: r.relevance, seq: r.seq, epoch },
    }));
  }

  rank(query: RankQuery): RankedHit[] {
    const ranked = this.rankSelect(query);
    if (!ranked) return [];
    const { select, phrases } = ranked;
    const epoch = this.epoch();
    const position = this.resolvePosition("score", select, query.after, query.text, epoch);
    let rows: RankedRow[] | undefined;
    const plan =
      phrases.length > 0 ? this.planPrune(phrases, select, query.scoring, epoch) : undefined;
    if (plan) {
      const pruned = this.rankedRows(
        "score",
        { ...select, within: plan.within },
        position,
        query.limit,
        query.text,
      );
      const last = pruned[pruned.length - 1];
      // Exact when nothing outside P is a hit, or the page is full and beats every memory outside P.
      if (
        plan.restExcluded ||
        (pruned.length === query.limit && last && (last.score ?? 0) > plan.restBound + 1e-12)
      ) {
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
  }

  /** What `search` selects; undefined for a query without words (no hits). */
  private searchSelect(query: Omit<TextQuery, "limit" | "after">): RankedSelect | undefined {
    if (query.syntax === "plain") {
      const phrases = plainPhrases(query.text);
      if (phrases.length === 0) return undefined;
      const coverage = this.coverage(phrases);
      return {
        match: phrases.join(" OR "),
        filter: query.filter,
        horizon: query.horizon,
        coverage,
        minCoverage: this.minCoverage(coverage, query),
      };
    }
    const match = clausesToFts(parseQuery(query.text));
    return match === undefined
      ? undefined
      : { match, filter: query.filter, horizon: query.horizon };
  }

  /** The floor's smallest coverage for `query` (see `term-coverage.ts`), if it has a floor. */
  private minCoverage(
    coverage: WeightedTerm<string>[] | undefined,
    query: {
      floor?: number | undefined;
      filter?: MemoryFilter | undefined;
      horizon?: number | undefined;
    },
  ): number | undefined {
    if (!coverage || query.floor === undefined) return undefined;
    let best: number | undefined;
    let checked = false;
    for (const { terms, weight } of combinationsByWeight(coverage)) {
      checked = true;
      const s = existsSelect(terms.join(" AND "), query.filter, query.horizon);
      if (this.statements.get(s.sql).get(...s.params) !== undefined) {
        best = weight;
        break;
      }
    }
    // Every combination checked, each word alone among them: no memory of the filter matches any.
    if (best === undefined && checked) best = 0;
    if (best === undefined) {
      const s = bestCoverageSelect(coverage, query.filter, query.horizon);
      best = this.statements
        .get(s.sql)
        .pluck()
        .get(...s.params) as number;
    }
    return minCoverage(query.floor, best);
  }

  /** The weights of a plain query's phrases (see `term-coverage.ts`). */
  private coverage(phrases: string[]): WeightedTerm<string>[] | undefined {
    if (phrases.length < 2) return undefined;
    const epoch = this.epoch();
    const hits = phrases.map((p) => this.phraseHits(p, epoch));
    return termWeights(phrases, hits, this.rowCount(epoch));
  }

  /** What `rank` selects, and its phrases; undefined for text without words (no hits). */
  private rankSelect(
    query: Omit<RankQuery, "limit" | "after">,
  ): { select: RankedSelect; phrases: string[] } | undefined {
    const text = query.text.trim();
    const phrases = text.length > 0 ? plainPhrases(text) : [];
    if (text.length > 0 && phrases.length === 0) return undefined;
    const coverage = this.coverage(phrases);
    const select: RankedSelect = {
      match: phrases.length > 0 ? phrases.join(" OR ") : undefined,
      filter: query.filter,
      horizon: query.horizon,
      scoring: query.scoring,
      coverage,
      minCoverage: this.minCoverage(coverage, query),
    };
    return { select, phrases };
  }

  /**
   * Every hit of `search`, in its order, as narrow rows (sequence number and
   * relevance; the wide columns are read later, a batch at a time).
   */
  searchAllRows(query: Omit<TextQuery, "limit" | "after">): NarrowRows {
    const select = this.searchSelect(query);
    return select ? this.allRows("relevance", select, query.text) : new NarrowRows();
  }

  /** Every hit of `rank`, in its order, as narrow rows (see {@link searchAllRows}). */
  rankAllRows(query: Omit<RankQuery, "limit" | "after">): NarrowRows {
    const ranked = this.rankSelect(query);
    return ranked ? this.allRows("score", ranked.select, query.text) : new NarrowRows();
  }

  /**
   * One statement over every hit, ordered by `key` desc then seq asc, read
   * into typed arrays: 24 bytes a hit, so 100,000 hits take 2.4 MB, not the
   * hundreds of bytes a row object would.
   */
  private allRows(key: "relevance" | "score", select: RankedSelect, text: string): NarrowRows {
    const inner = rankedSelect(select);
    const columns = key === "score" ? "seq, relevance, score" : "seq, relevance, relevance";
    const sql = `SELECT ${columns} FROM (${inner.sql}) ORDER BY ${key} DESC, seq ASC`;
    const rows = new NarrowRows();
    try {
      for (const r of this.statements
        .get(sql)
        .raw(true)
        .iterate(...inner.params)) {
        const [seq, relevance, value] = r as [number, number, number];
        rows.push(seq, relevance, value);
      }
    } catch (err) {
      if (isSqliteError(err) && err.code === "SQLITE_ERROR") {
        throw queryInvalid(text, err.message, err);
      }
      throw err;
    }
    return rows;
  }

  /**
   * The raw rows (`[seq, ...columns]`, see `rawReader`) of the memories with
   * these sequence numbers, in one statement; a memory deleted since its
   * narrow row was read is absent. Rows, not memories: the caller converts
   * each as it goes, so a batch's memories never all live at once.
   * `columns`: the memory columns to read (see `columnsOf`).
   */
  readManyBySeq(
    seqs: ArrayLike<number>,
    from: number,
    to: number,
    columns: string,
  ): Map<number, unknown[]> {
    const list: number[] = [];
    for (let i = from; i < to; i++) list.push(seqs[i] as number);
    const rows = this.statements
      .get(
        `SELECT m.seq AS seq, ${columns} FROM memories m WHERE m.seq IN (SELECT value FROM json_each(?))`,
      )
      .raw(true)
      .all(JSON.stringify(list)) as unknown[][];
    const out = new Map<number, unknown[]>();
    for (const row of rows) out.set(row[0] as number, row);
    return out;
  }

  /** The current write epoch (see `store_meta`). */
  private epoch(): number {
    return this.statements
      .get("SELECT value FROM store_meta WHERE key = 'epoch'")
      .pluck()
      .get() as number;
  }

  /** Memories in the store at most (the largest sequence number, as on PostgreSQL), cached per write epoch like {@link phraseHits}. */
  private rowCount(epoch: number): number {
    const key = `${epoch}\u0000`;
    let n = this.hitCache.get(key);
    if (n === undefined) {
      n = this.statements.get("SELECT coalesce(max(seq), 0) FROM memories").pluck().get() as number;
      if (this.hitCache.size >= HIT_CACHE_SIZE) this.hitCache.clear();
      this.hitCache.set(key, n);
    }
    return n;
  }

  /** Rows matching `phrase`, cached per write epoch (the next page asks again). */
  private phraseHits(phrase: string, epoch: number): number {
    const key = `${epoch}\u0000${phrase}`;
    let n = this.hitCache.get(key);
    if (n === undefined) {
      n = this.statements
        .get("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?")
        .pluck()
        .get(phrase) as number;
      if (this.hitCache.size >= HIT_CACHE_SIZE) this.hitCache.clear();
      this.hitCache.set(key, n);
    }
    return n;
  }

  /** Counts per phrase and the bounds {@link planPrune} needs. */
  private planPrune(
    phrases: string[],
    select: RankedSelect,
    scoring: Scoring,
    epoch: number,
  ): PrunePlan | undefined {
    if (phrases.length > 8) return undefined; // long pasted text: not worth counting
    const hits = phrases.map((p) => this.phraseHits(p, epoch));
    const bounds = this.statements
      .get(
        "SELECT (SELECT coalesce(max(seq), 0) FROM memories) AS seq, (SELECT max(modified_ms) FROM memories) AS modified",
      )
      .get() as { seq: number; modified: number | null };
    return planPrune({
      phrases,
      hits,
      rowsUpperBound: bounds.seq,
      latestModified: bounds.modified ?? undefined,
      scoring,
      weights: select.coverage
        ? phrases.map((p) => select.coverage?.find((t) => t.term === p)?.weight)
        : undefined,
      minCoverage: select.minCoverage,
    });
  }

  /** Where a page continues (see `resumeAfter`): anchors re-scored under the current statistics. */
  private resolvePosition(
    key: "relevance" | "score",
    select: RankedSelect,
    after: RankPosition | undefined,
    text: string,
    epoch: number,
  ): Keyset | undefined {
    return resumeAfter(after, epoch, (seqs) => {
      const values = new Map<number, number>();
      for (const seq of seqs) {
        const anchor = rankedSelect({ ...select, onlySeq: seq });
        const rows = this.runMatch(
          `SELECT ${key} AS v FROM (${anchor.sql})`,
          anchor.params,
          text,
        ) as {
          v: number;
        }[];
        const current = rows[0]?.v;
        if (current !== undefined) {
          values.set(seq, current);
          break; // the nearest anchor still a hit decides
        }
      }
      return values;
    });
  }

  /**
   * Hits of `select` ordered by `key` desc then seq asc, strictly after
   * `position`. The SELECT yields narrow rows; the wide columns are read for
   * the page only, so the sorter never carries long content.
   */
  private rankedRows(
    key: "relevance" | "score",
    select: RankedSelect,
    position: Keyset | undefined,
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
    const s = this.statements.get(sql);
    try {
      return s.all(...params);
    } catch (err) {
      if (isSqliteError(err) && err.code === "SQLITE_ERROR") {
        throw queryInvalid(text, err.message, err);
      }
      throw err;
    }
  }

  private readBySeq(seq: number): Memory | undefined {
    const row = this.statements
      .get(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.seq = ?`)
      .get(seq) as MemoryRow | undefined;
    return row ? fromRow(row) : undefined;
  }
}
