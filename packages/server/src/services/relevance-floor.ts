/**
 * The relevance floor: a recall or search matches only the memories that
 * carry at least a share of what the best match carries of the query
 * (`[recall] relevance_floor_percent`, default {@link DEFAULT_RELEVANCE_FLOOR_PERCENT}).
 *
 * What a memory carries is its coverage (`store/term-coverage.ts`): the
 * share of the query's significant words it contains, each weighted by its
 * rarity. A question's words each match some memories, and most matches
 * share one common word and nothing else ("note" in "which note mentions the
 * zephyrine valve?"); against the best match, which carries "note",
 * "zephyrine" and "valve", they cover a small share, so the floor keeps the
 * memories that carry the query's terms, and the whole set a client gets is
 * the relevant few, not every memory sharing a word.
 *
 * On coverage, not the engine's score: bm25 (SQLite) and ts_rank
 * (PostgreSQL) differ in scale and in shape (ts_rank weighs a title four
 * times the content, unsaturated, and ignores rarity), while coverage comes
 * from the same word counts on both, so one percentage keeps the same
 * memories on both stores. The best match is the first by relevance (the
 * engine's score times coverage). A query whose hits all carry the same
 * share (one word, a phrase, the query language's required words) has no
 * floor: every hit carries the whole query. 0 turns the floor off.
 *
 * The floor is found once per read, with the read's filter and horizon, and
 * travels in the read's cursors, so every page of a walk uses the same floor.
 */
import type { MemoryFilter, MemoryStore } from "../store/store.js";

/** Default floor, in percent of the best match's coverage (chosen on the labelled set, see docs/recall-quality.md). */
export const DEFAULT_RELEVANCE_FLOOR_PERCENT = 60;

/** The smallest coverage a hit keeps, or undefined when there is no floor (off, or nothing to tell hits apart). */
export async function minCoverage(
  store: MemoryStore,
  query: {
    text: string;
    syntax: "plain" | "native";
    filter: MemoryFilter;
    horizon?: number | undefined;
  },
  percent: number,
): Promise<number | undefined> {
  if (percent <= 0 || query.text.trim().length === 0) return undefined;
  const [best] = await store.search({ ...query, limit: 1 });
  if (best?.coverage === undefined || !(best.coverage > 0)) return undefined;
  return (best.coverage * Math.min(percent, 100)) / 100;
}

/** The cursor member that pins a walk's floor. */
const FLOOR_KEY = "f";

/**
 * The floor of one read, found once (at the first horizon asked) and written
 * into the read's cursor fields, so the cursors it issues pin it.
 */
export function floorOf(
  cursorFields: Record<string, unknown>,
  find: (horizon: number | undefined) => Promise<number | undefined>,
): (horizon: number | undefined) => Promise<number | undefined> {
  let found: Promise<number | undefined> | undefined;
  return (horizon) => {
    found ??= find(horizon).then((min) => {
      Object.assign(cursorFields, floorField(min));
      return min;
    });
    return found;
  };
}

/** The cursor fields of a floor (none when the floor is off). */
export function floorField(min: number | undefined): Record<string, number> {
  return min === undefined ? {} : { [FLOOR_KEY]: min };
}

/** The floor a cursor pins, if any. */
export function pinnedFloor(position: Record<string, unknown>): number | undefined {
  const min = position[FLOOR_KEY];
  return typeof min === "number" && Number.isFinite(min) ? min : undefined;
}

/** The hits of `stream(value)` once `value` is known. */
export async function* streamAfter<A, T>(
  value: Promise<A>,
  stream: (a: A) => AsyncIterable<T>,
): AsyncGenerator<T> {
  yield* stream(await value);
}
