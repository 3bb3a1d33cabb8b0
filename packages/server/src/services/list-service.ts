/**
 * List: memories by filter in a stable order with keyset pagination on
 * (sort key, insertion sequence). A cursor holds the last row's position, so a walk visits
 * every memory that existed when it started exactly once, however many are
 * added meanwhile (new ones appear when they sort after the position reached).
 */
import { encodeCursor, fingerprint } from "../model/cursor.js";
import type { Memory } from "../model/memory.js";
import type {
  Fielded,
  ListedMemory,
  ListQuery,
  ListSort,
  MemoryFilter,
  MemoryStore,
  ReadFields,
  SortOrder,
} from "../store/store.js";
import { checkCursorArg, checkLimit, type FilterInput, normalizeFilter } from "./args.js";
import { member, openCursor } from "./cursor-args.js";
import { invalidArgument } from "./errors.js";
import { type ReadOptions, ReadWatch } from "./read-watch.js";

/** Default page size of list. */
const DEFAULT_LIST_LIMIT = 50;

const SORTS: readonly ListSort[] = ["created", "modified", "title"];
const ORDERS: readonly SortOrder[] = ["asc", "desc"];

export interface ListInput {
  filter?: FilterInput | undefined;
  /** `created` (default), `modified` or `title` (case-insensitive). */
  sort?: ListSort | undefined;
  /** `desc` (default) or `asc`. */
  order?: SortOrder | undefined;
  /** 1 to 1000, default 50. */
  limit?: number | undefined;
  /** `next_cursor` of the previous page, with the same filter, sort and order. */
  cursor?: string | null | undefined;
  /** Rows to skip, 0 to {@link MAX_LIST_OFFSET} (offset pagination, for the REST API); not with `cursor`. */
  offset?: number | undefined;
}

/** Largest `offset`: skipped rows are still read, so the skip is bounded. */
export const MAX_LIST_OFFSET = 100_000;

export interface ListResult {
  memories: Memory[];
  /** Pass back to get the next page; null when this page is the last. */
  next_cursor: string | null;
}

/** Filtered, sorted listing. Knows nothing of offloading. */
export class ListService {
  constructor(private readonly store: MemoryStore) {}

  /** Filter, sort and order, checked (throws `INVALID_ARGUMENT`). */
  private checked(input: ListInput): { filter: MemoryFilter; sort: ListSort; order: SortOrder } {
    const sort = input.sort ?? "created";
    if (!SORTS.includes(sort)) {
      throw invalidArgument(
        "sort",
        `sort must be one of ${SORTS.join(", ")}; got ${JSON.stringify(sort)}.`,
      );
    }
    const order = input.order ?? "desc";
    if (!ORDERS.includes(order)) {
      throw invalidArgument("order", `order must be asc or desc; got ${JSON.stringify(order)}.`);
    }
    return { filter: normalizeFilter(input.filter), sort, order };
  }

  /**
   * Every memory `list` would page through, in its order, read from the store
   * in one pass (no cursor, no limit), with the `fields` asked for (see
   * `ReadFields`), reporting progress and stopping when `signal` is aborted
   * (see `ReadWatch`). Arguments are checked now.
   */
  all<F extends ReadFields = "full">(
    input: Omit<ListInput, "limit" | "cursor"> = {},
    options: ReadOptions<F> = {},
  ): AsyncIterable<Fielded<F>> {
    const query = { ...this.checked(input), fields: options.fields };
    const store = this.store;
    return (async function* () {
      const watch = new ReadWatch(options);
      watch.start();
      for await (const r of store.listAll(query)) {
        watch.hit();
        yield r.memory;
      }
      watch.end();
    })();
  }

  /** Limit and offset, checked (throws `INVALID_ARGUMENT`). */
  private window(input: ListInput, cursor: string | undefined): { limit: number; offset: number } {
    const limit = checkLimit(input.limit, DEFAULT_LIST_LIMIT);
    const offset = input.offset ?? 0;
    if (!Number.isInteger(offset) || offset < 0 || offset > MAX_LIST_OFFSET) {
      throw invalidArgument("offset", `offset must be an integer from 0 to ${MAX_LIST_OFFSET}.`);
    }
    if (offset > 0 && cursor !== undefined) {
      throw invalidArgument("offset", "give either offset or cursor, not both.");
    }
    return { limit, offset };
  }

  /** `limit` rows after `offset` (and `after`), with `fields`; one more is read to tell whether more follow. */
  private async read<F extends ReadFields>(
    query: Omit<ListQuery, "limit">,
    window: { limit: number; offset: number },
    fields: F | undefined,
  ): Promise<{ rows: ListedMemory<Fielded<F>>[]; more: boolean }> {
    const { limit, offset } = window;
    // A store that skips in the database decodes only the page; another one
    // returns the skipped rows too, dropped here.
    const rows = this.store.capabilities.listOffset
      ? await this.store.list({ ...query, limit: limit + 1, offset, fields })
      : (await this.store.list({ ...query, limit: offset + limit + 1, fields })).slice(offset);
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }

  /**
   * A page by offset (the REST API): the memories with `fields` and whether
   * more follow. No cursor is made: offset pagination has no use for one.
   */
  async page<F extends ReadFields = "full">(
    input: Omit<ListInput, "cursor"> = {},
    fields?: F,
  ): Promise<{ memories: Fielded<F>[]; more: boolean }> {
    const { rows, more } = await this.read(
      this.checked(input),
      this.window(input, undefined),
      fields,
    );
    return { memories: rows.map((r) => r.memory), more };
  }

  async list(input: ListInput = {}): Promise<ListResult> {
    const { filter, sort, order } = this.checked(input);
    const cursor = checkCursorArg(input.cursor);
    const window = this.window(input, cursor);
    const print = fingerprint({ op: "list", filter, sort, order });

    let after: { key: string | number; seq: number } | undefined;
    if (cursor !== undefined) {
      const p = openCursor(cursor, "list", print);
      after = {
        key: member(p, "k", sort === "title" ? "string" : "number"),
        seq: member(p, "q", "number"),
      };
    }
    const { rows, more } = await this.read({ filter, sort, order, after }, window, "full");
    const last = rows[rows.length - 1];
    const next_cursor =
      more && last
        ? encodeCursor("list", print, { k: last.position.key, q: last.position.seq })
        : null;
    return { memories: rows.map((r) => r.memory), next_cursor };
  }
}
