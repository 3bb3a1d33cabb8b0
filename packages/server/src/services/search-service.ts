/**
 * Search: full-text queries in the query language of `store/query-syntax.ts`
 * (words, and operators only where written; never malformed), hits with the backend's raw relevance (title weighted above tags above
 * content; higher is better, unbounded, comparable only within one query). With
 * `syntax: "plain"` relevance and the relevance floor read coverage as recall does
 * (see `relevance-floor.ts`).
 *
 * Pages: keyset on (relevance desc, insertion order) with a horizon, as in recall (see
 * `recall-service.ts` for what that guarantees while memories are added).
 */
import { fingerprint } from "../model/cursor.js";
import type { LightRecord, Memory } from "../model/memory.js";
import type {
  Fielded,
  MemoryFilter,
  MemoryStore,
  QuerySyntax,
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
import { member, openCursor, rankPositionOf } from "./cursor-args.js";
import { fromStoreError, invalidArgument } from "./errors.js";
import type { ServiceOptions } from "./memory-service.js";
import { type PositionedHit, pageOf, RankedRead, type ReadOptions } from "./ranked-read.js";
import { MAX_QUERY_CHARS } from "./recall-service.js";
import { DEFAULT_RELEVANCE_FLOOR_PERCENT, floorFraction } from "./relevance-floor.js";

/** Default number of search hits. */
const DEFAULT_SEARCH_LIMIT = 20;

export interface SearchInput {
  /** A query in the query language (see {@link SearchService.syntax}). */
  query: string;
  /** `native` (default) reads the query language; `plain` treats the query as words, any of which may match. */
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

export interface SearchResult<M extends LightRecord = Memory> {
  /** Most relevant first: relevance desc, then insertion order. */
  hits: SearchHit<M>[];
  next_cursor: string | null;
}

/** Full-text search over the store. Knows nothing of offloading. */
export class SearchService {
  /** The store's relevance floor (see `relevance-floor.ts`). */
  private readonly floor: number | undefined;
  constructor(
    private readonly store: MemoryStore,
    options: Pick<ServiceOptions, "relevanceFloorPercent"> = {},
  ) {
    this.floor = floorFraction(options.relevanceFloorPercent ?? DEFAULT_RELEVANCE_FLOOR_PERCENT);
  }

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
   * One ranked read of `input` (see `RankedRead`): `stream()` yields every
   * hit `search` would page through, most relevant first, from one pass over
   * the store (a query it cannot parse is reported as it is read), each
   * memory with the `fields` asked for; `firstPage(limit)` is the page
   * `search` returns without a cursor. Arguments are checked now.
   */
  read<F extends ReadFields = "full">(
    input: Omit<SearchInput, "cursor">,
    options: ReadOptions<F> = {},
  ): RankedRead<Fielded<F>> {
    const { query, syntax, filter } = this.checked(input);
    const limit = checkLimit(input.limit, DEFAULT_SEARCH_LIMIT);
    const store = this.store;
    const floor = this.floor;
    return new RankedRead<Fielded<F>>({
      op: "search",
      print: fingerprint({ op: "search", query, syntax, filter }),
      cursorFields: {},
      keep: limit + 1,
      onProgress: options.onProgress,
      signal: options.signal,
      horizon: () => store.horizon(),
      whole: () =>
        scored(store.searchAll({ text: query, syntax, filter, floor, fields: options.fields })),
      page: async (count, horizon) =>
        (await store.search({ text: query, syntax, filter, floor, limit: count, horizon })).map(
          (h) => ({
            memory: h.memory as Fielded<F>,
            score: h.relevance,
            position: h.position,
          }),
        ),
    });
  }

  async search(input: SearchInput): Promise<SearchResult> {
    const { query, syntax, filter } = this.checked(input);
    const limit = checkLimit(input.limit, DEFAULT_SEARCH_LIMIT);
    const cursor = checkCursorArg(input.cursor);
    if (cursor === undefined) {
      const { hits, next_cursor } = await this.read(input).firstPage(limit);
      return { hits, next_cursor };
    }
    const print = fingerprint({ op: "search", query, syntax, filter });
    const p = openCursor(cursor, "search", print);
    const horizon = member(p, "h", "number");
    let found: TextHit[];
    try {
      found = await this.store.search({
        text: query,
        syntax,
        filter,
        floor: this.floor,
        limit: limit + 1,
        after: rankPositionOf(p),
        horizon,
      });
    } catch (err) {
      fromStoreError(err, "query");
    }
    const hits = found.map((h) => ({ memory: h.memory, score: h.relevance, position: h.position }));
    const spec = { op: "search" as const, print, cursorFields: {} };
    const { hits: page, next_cursor } = pageOf(spec, hits, limit, horizon, false);
    return { hits: page, next_cursor };
  }
}

/** Text hits as ranked hits: relevance is the score. */
async function* scored<M extends Fielded<ReadFields>>(
  hits: AsyncIterable<TextHit<M>>,
): AsyncGenerator<PositionedHit<M>> {
  for await (const h of hits) yield { memory: h.memory, score: h.relevance, position: h.position };
}
