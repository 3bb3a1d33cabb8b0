/**
 * Search: full-text queries in the store's native syntax (the backend declares
 * it in `capabilities.querySyntax`: FTS5 on SQLite, websearch on PostgreSQL),
 * hits with the backend's raw relevance (title weighted above tags above
 * content; higher is better, unbounded, comparable only within one query).
 *
 * Pages: keyset on (relevance desc, insertion order) with a horizon, as in recall (see
 * `recall-service.ts` for what that guarantees while memories are added).
 */
import { encodeCursor, fingerprint } from "../model/cursor.js";
import type { LightRecord, Memory } from "../model/memory.js";
import type {
  Fielded,
  MemoryFilter,
  MemoryStore,
  QuerySyntax,
  RankPosition,
  ReadFields,
  TextHit,
} from "../store/store.js";
import {
  checkCursorArg,
  checkLimit,
  type FilterInput,
  normalizeFilter,
  refuseNul,
} from "./args.js";
import { member, openCursor, rankPositionFields, rankPositionOf } from "./cursor-args.js";
import { fromStoreError, invalidArgument } from "./errors.js";
import { MAX_QUERY_CHARS } from "./recall-service.js";

/** Default number of search hits. */
export const DEFAULT_SEARCH_LIMIT = 20;

export interface SearchInput {
  /** A query in the store's native syntax (see {@link SearchService.syntax}). */
  query: string;
  /** `native` (default) passes the query through; `plain` treats it as words, any of which may match. */
  syntax?: "native" | "plain" | undefined;
  filter?: FilterInput | undefined;
  /** 1 to 1000, default 20. */
  limit?: number | undefined;
  /** `next_cursor` of the previous page, with the same query and filter. */
  cursor?: string | null | undefined;
}

/** One search hit with its raw relevance (higher is better). */
export interface SearchHit<M extends LightRecord = Memory> {
  memory: M;
  score: number;
}

/** A hit of {@link SearchService.all}: where it stands, to page from it. */
export interface PositionedSearchHit<M extends LightRecord = Memory> extends SearchHit<M> {
  position: RankPosition;
}

export interface SearchResult<M extends LightRecord = Memory> {
  /** Most relevant first: relevance desc, then insertion order. */
  hits: SearchHit<M>[];
  next_cursor: string | null;
}

/** Full-text search over the store. Knows nothing of offloading. */
export class SearchService {
  constructor(private readonly store: MemoryStore) {}

  /** The query language `search` accepts, and the full-text engine behind it. */
  get syntax(): { engine: string; native: boolean } & QuerySyntax {
    const { fullText, nativeQuerySyntax, querySyntax } = this.store.capabilities;
    return { engine: fullText, native: nativeQuerySyntax, ...querySyntax };
  }

  /** The query, its syntax and filter, checked (throws `INVALID_ARGUMENT`). */
  private checked(input: SearchInput): {
    query: string;
    syntax: "plain" | "native";
    filter: MemoryFilter;
  } {
    const query = input?.query;
    if (typeof query !== "string" || query.trim().length === 0) {
      throw invalidArgument(
        "query",
        `query is required: a full-text query such as \`${this.store.capabilities.querySyntax.example}\`.`,
      );
    }
    if (query.length > MAX_QUERY_CHARS) {
      throw invalidArgument("query", `query must be at most ${MAX_QUERY_CHARS} characters.`);
    }
    refuseNul("query", query);
    const syntax =
      input.syntax === "plain" || !this.store.capabilities.nativeQuerySyntax ? "plain" : "native";
    if (input.syntax !== undefined && input.syntax !== "plain" && input.syntax !== "native") {
      throw invalidArgument("syntax", 'syntax must be "native" or "plain".');
    }
    return { query, syntax, filter: normalizeFilter(input.filter) };
  }

  /**
   * Every hit `search` would page through, most relevant first, read from the
   * store in one pass (no cursor, no limit). Arguments are checked now; the
   * store is read (and a query it cannot parse reported) as it is iterated.
   * Each memory has the `fields` asked for (see `ReadFields`).
   */
  all<F extends ReadFields = "full">(
    input: Omit<SearchInput, "limit" | "cursor">,
    fields?: F,
  ): AsyncIterable<PositionedSearchHit<Fielded<F>>> {
    const { query, syntax, filter } = this.checked(input);
    const hits = this.store.searchAll({ text: query, syntax, filter, fields });
    return (async function* () {
      try {
        for await (const h of hits) {
          yield { memory: h.memory, score: h.relevance, position: h.position };
        }
      } catch (err) {
        fromStoreError(err, "query");
      }
    })();
  }

  /**
   * The first page `search` (no cursor) returns, built from hits already read
   * by {@link all} instead of a second store query: `head` holds that read's
   * first `limit + 1` hits in its order, `horizon` the largest sequence number
   * of all its hits. The cursor continues exactly as `search`'s would.
   */
  firstPage<M extends LightRecord>(
    input: Omit<SearchInput, "cursor">,
    read: { head: readonly PositionedSearchHit<M>[]; horizon: number },
  ): SearchResult<M> {
    const { query, syntax, filter } = this.checked(input);
    const limit = checkLimit(input.limit, DEFAULT_SEARCH_LIMIT);
    const print = fingerprint({ op: "search", query, syntax, filter });
    const found = read.head.map((h) => ({ ...h, relevance: h.score }));
    return pageOf(found, limit, print, read.horizon);
  }

  async search(input: SearchInput): Promise<SearchResult> {
    const { query, syntax, filter } = this.checked(input);
    const limit = checkLimit(input.limit, DEFAULT_SEARCH_LIMIT);
    const cursor = checkCursorArg(input.cursor);
    const print = fingerprint({ op: "search", query, syntax, filter });

    let horizon: number;
    let after: RankPosition | undefined;
    if (cursor !== undefined) {
      const p = openCursor(cursor, "search", print);
      horizon = member(p, "h", "number");
      after = rankPositionOf(p);
    } else {
      horizon = await this.store.horizon();
    }

    let found: TextHit[];
    try {
      found = await this.store.search({
        text: query,
        syntax,
        filter,
        limit: limit + 1,
        after,
        horizon,
      });
    } catch (err) {
      fromStoreError(err, "query");
    }
    return pageOf(found, limit, print, horizon);
  }
}

/** A page of `limit` hits from `limit + 1` found ones, and the cursor after it. */
function pageOf<M extends LightRecord>(
  found: readonly { memory: M; relevance: number; position: RankPosition }[],
  limit: number,
  print: string,
  horizon: number,
): SearchResult<M> {
  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  const next_cursor =
    found.length > limit && last
      ? encodeCursor("search", print, { ...rankPositionFields(page), h: horizon })
      : null;
  return { hits: page.map((h) => ({ memory: h.memory, score: h.relevance })), next_cursor };
}
