/**
 * Ranked reads of the PostgreSQL store: text search by relevance and recall by
 * combined score, as pages (keyset after a re-scored anchor) and as whole sets
 * (one server-side cursor), over the store's connections.
 */
import type pg from "pg";
import { StoreError } from "../errors.js";
import { fromRow, rowReader } from "../memory-row.js";
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
import { columnsOf, Params } from "./filter-sql.js";
import { type RankedSelect, rankedInner, rankedPage, TEXT_READ_SETTINGS } from "./ranked-sql.js";
import { type PageRow, rankedHit, textHit } from "./rows.js";
import { plainTsQuery } from "./text-query.js";

/** What the reader needs of the store's connections. */
export interface PgReads {
  /** Run `fn`, mapping failures to `StoreError`s (and refusing a closed store). */
  run<T>(context: string, fn: () => Promise<T>): Promise<T>;
  rows<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]>;
  /** Rows through a server-side cursor, in one read-only snapshot. */
  stream<R>(context: string, text: string, values: unknown[], textRead?: boolean): AsyncIterable<R>;
  connect(): Promise<pg.PoolClient>;
}

/** Ranked reads over {@link PgReads}. */
export class RankedReader {
  constructor(private readonly db: PgReads) {}

  async search(query: TextQuery): Promise<TextHit[]> {
    return this.db.run("search", async () => {
      const select = await this.textSelect(query);
      const after = await this.resume("relevance", select, query.after);
      const rows = await this.page("relevance", select, after, query.limit);
      return rows.map((row) => textHit(row, fromRow));
    });
  }

  async rank(query: RankQuery): Promise<RankedHit[]> {
    return this.db.run("rank", async () => {
      const select = this.rankSelect(query);
      const after = await this.resume("score", select, query.after);
      const rows = await this.page("score", select, after, query.limit);
      return rows.map((row) => rankedHit(row, fromRow));
    });
  }

  async *rankAll<F extends ReadFields = "full">(
    query: WholeQuery<RankQuery, F>,
  ): AsyncIterable<RankedHit<Fielded<F>>> {
    const select = await this.db.run("rank", async () => this.rankSelect(query));
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
    const select = await this.db.run("search", () => this.textSelect(query));
    const p = new Params();
    const text = rankedPage("relevance", select, undefined, undefined, p, columnsOf(query.fields));
    const read = rowReader(query.fields);
    for await (const row of this.db.stream<PageRow>("search", text, p.values, !!select.text)) {
      yield textHit(row, read);
    }
  }

  /** The ranked select of a search; a native query without a searchable word is `QUERY_INVALID`. */
  private async textSelect(query: Omit<TextQuery, "limit" | "after">): Promise<RankedSelect> {
    const base = { filter: query.filter, horizon: query.horizon };
    if (query.syntax === "plain") {
      const plain = plainTsQuery(query.text);
      if (!plain) throw noWords(query.text);
      return { ...base, text: { kind: "plain", query: plain.query, terms: plain.terms } };
    }
    const [row] = await this.db.rows<{ n: number }>(
      "SELECT numnode(websearch_to_tsquery('atlatl'::regconfig, $1)) AS n",
      [query.text],
    );
    if (!row || row.n === 0) throw noWords(query.text);
    return { ...base, text: { kind: "websearch", query: query.text, terms: 1 } };
  }

  private rankSelect(query: Omit<RankQuery, "limit" | "after">): RankedSelect {
    const text = query.text.trim();
    const plain = text.length > 0 ? plainTsQuery(text) : undefined;
    if (text.length > 0 && !plain) {
      throw new StoreError(
        "QUERY_INVALID",
        `The query ${JSON.stringify(query.text)} has no searchable words; give at least one word, or an empty query to rank by confidence and recency.`,
      );
    }
    return {
      text: plain ? { kind: "plain", query: plain.query, terms: plain.terms } : undefined,
      filter: query.filter,
      horizon: query.horizon,
      scoring: query.scoring,
    };
  }

  /**
   * Where a page continues (see `resumeAfter`). ts_rank depends on the memory
   * alone, so only an anchor that was updated or deleted moves; there is no
   * write epoch, and anchors are re-scored on every continued page (one small
   * indexed query).
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

function noWords(text: string): StoreError {
  return new StoreError(
    "QUERY_INVALID",
    `The query ${JSON.stringify(text)} has no searchable words; give at least one word.`,
  );
}
