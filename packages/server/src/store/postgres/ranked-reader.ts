/**
 * Ranked reads of the PostgreSQL store: text search by relevance and recall by
 * combined score, as pages (keyset after a re-scored anchor) and as whole sets
 * (one server-side cursor), over the store's connections.
 */
import type pg from "pg";
import { fromRow, rowReader } from "../memory-row.js";
import { parseQuery } from "../query-syntax.js";
import { type Keyset, resumeAfterAsync } from "../ranking.js";
import type {
  Fielded,
  RankedHit,
  RankPosition,
  RankQuery,
  ReadFields,
  TextHit,
  TextQuery,
  WholeQuery,
} from "../store.js";
import { combinationsByWeight, minCoverage, termWeights } from "../term-coverage.js";
import { columnsOf, Params } from "./filter-sql.js";
import {
  bestCoverageSql,
  existsSql,
  type RankedSelect,
  rankedInner,
  rankedPage,
  TEXT_READ_SETTINGS,
} from "./ranked-sql.js";
import { type PageRow, rankedHit, textHit } from "./rows.js";
import { clausesTsQuery, plainTsQuery } from "./text-query.js";

/**
 * How long a word's count of memories is reused. Counting a common word reads
 * a GIN bitmap and its heap pages (15 ms at 25,000 of 100,000 memories), and
 * PostgreSQL has no write epoch that instances share (SQLite's counts are
 * cached per epoch); coverage weights move slowly with the counts.
 */
const WORD_COUNT_TTL_MS = 30_000;

/** Words whose counts are kept at most (the cache is cleared when full). */
const WORD_COUNT_CACHE_SIZE = 512;

/** What the reader needs of the store's connections. */
interface PgReads {
  /** Run `fn`, mapping failures to `StoreError`s (and refusing a closed store). */
  run<T>(context: string, fn: () => Promise<T>): Promise<T>;
  rows<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]>;
  /** Rows through a server-side cursor, in one read-only snapshot. */
  stream<R>(context: string, text: string, values: unknown[], textRead?: boolean): AsyncIterable<R>;
  connect(): Promise<pg.PoolClient>;
}

/** Ranked reads over {@link PgReads}. */
export class RankedReader {
  /** Memories matching each plain word, kept {@link WORD_COUNT_TTL_MS} (see `covered`). */
  private readonly wordCounts = new Map<string, { n: number; at: number }>();

  constructor(private readonly db: PgReads) {}

  async search(query: TextQuery): Promise<TextHit[]> {
    return this.db.run("search", async () => {
      const select = await this.covered(textSelect(query));
      if (!select) return [];
      const after = await this.resume("relevance", select, query.after);
      const rows = await this.page("relevance", select, after, query.limit);
      return rows.map((row) => textHit(row, fromRow));
    });
  }

  async rank(query: RankQuery): Promise<RankedHit[]> {
    return this.db.run("rank", async () => {
      const select = await this.covered(rankSelect(query));
      if (!select) return [];
      const after = await this.resume("score", select, query.after);
      const rows = await this.page("score", select, after, query.limit);
      return rows.map((row) => rankedHit(row, fromRow));
    });
  }

  async *rankAll<F extends ReadFields = "full">(
    query: WholeQuery<RankQuery, F>,
  ): AsyncIterable<RankedHit<Fielded<F>>> {
    const select = await this.db.run("rank", () => this.covered(rankSelect(query)));
    if (!select) return;
    const p = new Params();
    const text = rankedPage("score", select, undefined, undefined, p, columnsOf(query.fields));
    const read = rowReader(query.fields);
    for await (const row of this.db.stream<PageRow>("rank", text, p.values, !!select.text)) {
      yield rankedHit(row, read);
    }
  }

  async *searchAll<F extends ReadFields = "full">(
    query: WholeQuery<TextQuery, F>,
  ): AsyncIterable<TextHit<Fielded<F>>> {
    const select = await this.db.run("search", () => this.covered(textSelect(query)));
    if (!select) return;
    const p = new Params();
    const text = rankedPage("relevance", select, undefined, undefined, p, columnsOf(query.fields));
    const read = rowReader(query.fields);
    for await (const row of this.db.stream<PageRow>("search", text, p.values, !!select.text)) {
      yield textHit(row, read);
    }
  }

  /**
   * `select` with the weights of its plain words (see `term-coverage.ts`):
   * how many memories match each word, and how many there are at most (the
   * largest sequence number, as on SQLite: an index probe, where count(*)
   * reads every row), in one statement over the GIN index.
   */
  private async covered(select: RankedSelect | undefined): Promise<RankedSelect | undefined> {
    const words = select?.text?.words;
    if (!select?.text || !words || words.length < 2) return select;
    const now = Date.now();
    const fresh = (w: string) => {
      const c = this.wordCounts.get(w);
      return c !== undefined && now - c.at < WORD_COUNT_TTL_MS ? c.n : undefined;
    };
    const missing = words.filter((w) => fresh(w) === undefined);
    const p = new Params();
    const counts = missing.map(
      (w) =>
        `(SELECT count(*) FROM memories WHERE fts @@ to_tsquery('atlatl'::regconfig, ${p.add(w)}))`,
    );
    const [row] = await this.textRead<{ n: string; hits: string[] }>(
      `SELECT (SELECT coalesce(max(seq), 0) FROM memories) AS n, ARRAY[${counts.join(", ")}]::bigint[] AS hits`,
      p.values,
    );
    if (this.wordCounts.size + missing.length > WORD_COUNT_CACHE_SIZE) this.wordCounts.clear();
    missing.forEach((w, i) => {
      this.wordCounts.set(w, { n: Number(row?.hits[i] ?? 0), at: now });
    });
    const hits = words.map((w) => this.wordCounts.get(w)?.n ?? 0);
    const coverage = termWeights(words, hits, Number(row?.n ?? 0));
    if (!coverage) return select;
    const covered = { ...select, text: { ...select.text, coverage } };
    if (select.floor === undefined) return covered;
    return { ...covered, minCoverage: minCoverage(select.floor, await this.bestCoverage(covered)) };
  }

  /** The best coverage among the hits of `select` (see `combinationsByWeight`). */
  private async bestCoverage(select: RankedSelect): Promise<number> {
    for (const { terms, weight } of combinationsByWeight(select.text?.coverage ?? [])) {
      const p = new Params();
      const rows = await this.textRead(existsSql(terms, select, p), p.values);
      if (rows.length > 0) return weight;
    }
    const p = new Params();
    const [row] = await this.textRead<{ best: number }>(bestCoverageSql(select, p), p.values);
    return Number(row?.best ?? 0);
  }

  /**
   * Where a page continues (see `resumeAfter`). ts_rank depends on the memory
   * alone and coverage on word counts, so an anchor moves when it was updated
   * or deleted, or the counts changed; there is no write epoch, and anchors are
   * re-scored on every continued page (one small indexed query).
   */
  private resume(
    key: "relevance" | "score",
    select: RankedSelect,
    after: RankPosition | undefined,
  ): Promise<Keyset | undefined> {
    return resumeAfterAsync(after, undefined, async (seqs) => {
      const p = new Params();
      const inner = rankedInner({ ...select, onlySeqs: seqs }, p);
      const rows = await this.db.rows<{ seq: number; v: number }>(
        `SELECT s.seq, s.${key} AS v FROM (${inner}) s`,
        p.values,
      );
      return new Map(rows.map((r) => [r.seq, r.v]));
    });
  }

  private async page(
    key: "relevance" | "score",
    select: RankedSelect,
    after: Keyset | undefined,
    limit: number,
  ): Promise<PageRow[]> {
    const p = new Params();
    const text = rankedPage(key, select, after, limit, p);
    if (!select.text) return this.db.rows<PageRow>(text, p.values);
    return this.textRead<PageRow>(text, p.values);
  }

  /** One statement with a text condition, in a transaction with {@link TEXT_READ_SETTINGS}. */
  private async textRead<R extends pg.QueryResultRow>(
    text: string,
    values: unknown[],
  ): Promise<R[]> {
    const client = await this.db.connect();
    let broken = false;
    try {
      await client.query(`BEGIN READ ONLY; ${TEXT_READ_SETTINGS}`);
      const { rows } = await client.query<R>(text, values);
      await client.query("COMMIT");
      return rows;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      throw err;
    } finally {
      // A connection that cannot even roll back (lost, stalled) is dropped, not reused.
      client.release(broken);
    }
  }
}

/** The ranked select of a search; undefined for a query without words (no hits). */
function textSelect(query: Omit<TextQuery, "limit" | "after">): RankedSelect | undefined {
  const text =
    query.syntax === "plain" ? plainTsQuery(query.text) : clausesTsQuery(parseQuery(query.text));
  return text
    ? { text, filter: query.filter, horizon: query.horizon, floor: query.floor }
    : undefined;
}

/** The ranked select of a recall; undefined for text without words (no hits). */
function rankSelect(query: Omit<RankQuery, "limit" | "after">): RankedSelect | undefined {
  const text = query.text.trim();
  const plain = text.length > 0 ? plainTsQuery(text) : undefined;
  if (text.length > 0 && !plain) return undefined;
  return {
    text: plain,
    filter: query.filter,
    horizon: query.horizon,
    scoring: query.scoring,
    floor: query.floor,
  };
}
