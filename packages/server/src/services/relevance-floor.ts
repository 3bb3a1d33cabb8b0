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
 * memories on both stores. The best match is the one with the highest
 * coverage among the query's hits (its filter and horizon), which the store
 * finds for each read (see `combinationsByWeight`), so every page of a walk,
 * at its pinned horizon, applies the same floor. A
 * query whose hits all carry the same share (one word, a phrase, the query
 * language's required words) has no floor: every hit carries the whole
 * query. 0 turns the floor off.
 */

/** Default floor, in percent of the best match's coverage (chosen on the labelled set, see docs/recall-quality.md). */
export const DEFAULT_RELEVANCE_FLOOR_PERCENT = 60;

/** The store's `floor` for a percentage: a fraction in (0, 1], undefined when off. */
export function floorFraction(percent: number): number | undefined {
  return percent > 0 ? Math.min(percent, 100) / 100 : undefined;
}
