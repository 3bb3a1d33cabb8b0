/**
 * Coverage of a plain query (recall, and search with `syntax: "plain"`),
 * for both backends: how much of the query's significant words a memory
 * carries, each word weighted by its rarity (BM25's IDF,
 * ln(1 + (N - n + 0.5) / (n + 0.5)) for n of N memories, N the largest
 * sequence number: the row count when nothing was deleted), as a share of
 * all the words that match anything, in (0, 1].
 *
 * A plain query's words are OR-ed, so a question matches every memory that
 * shares one of its words; relevance is the engine's score times coverage
 * squared (a coordination factor, with IDF weights, squared so that carrying
 * the query outweighs a title hit: ts_rank weighs a title four times the
 * content), so a memory with "zephyrine" and "valve" in its content outranks
 * one with only "valve" and "note" in its title for "which note mentions the
 * zephyrine valve?", and the relevance floor (`services/relevance-floor.ts`)
 * leaves out those that carry too little of it. The weights come from the
 * same document counts on both backends, so coverage means the same on both
 * (SQLite's bm25 weighs rarity already; PostgreSQL's ts_rank does not).
 * Coverage is at most 1: relevance only goes down, so any upper bound of the
 * engine's score still bounds it.
 */

/** A term of the query and its share of the query's weight. */
export interface WeightedTerm<T> {
  term: T;
  weight: number;
}

/**
 * The weights of `terms` given how many memories match each (`hits`) out of
 * `rows`, summing to 1 over the terms that match anything; undefined when
 * fewer than two terms match (every hit then covers the same share).
 */
export function termWeights<T>(
  terms: readonly T[],
  hits: readonly number[],
  rows: number,
): WeightedTerm<T>[] | undefined {
  const weighted: WeightedTerm<T>[] = [];
  terms.forEach((term, i) => {
    const n = hits[i] ?? 0;
    if (n <= 0) return;
    const N = Math.max(rows, n);
    weighted.push({ term, weight: Math.log(1 + (N - n + 0.5) / (n + 0.5)) });
  });
  if (weighted.length < 2) return undefined;
  const total = weighted.reduce((a, w) => a + w.weight, 0);
  return weighted.map((w) => ({ term: w.term, weight: w.weight / total }));
}

/** Most terms whose combinations {@link combinationsByWeight} yields (2^8 - 1 at worst); longer queries scan their hits. */
const MAX_COMBINED_TERMS = 8;

/**
 * Every combination of the terms with its weight, heaviest first: the best
 * coverage any hit has is the weight of the first combination some memory
 * (of the query's filter and horizon) carries all of, so the usual answer (a
 * memory carries every word) takes one existence check. Nothing beyond
 * {@link MAX_COMBINED_TERMS} terms.
 */
export function* combinationsByWeight<T>(
  weights: readonly WeightedTerm<T>[],
): Generator<{ terms: T[]; weight: number }> {
  if (weights.length > MAX_COMBINED_TERMS) return;
  const combos: { mask: number; weight: number }[] = [];
  for (let mask = 1; mask < 1 << weights.length; mask++) {
    let weight = 0;
    weights.forEach((w, i) => {
      if (mask & (1 << i)) weight += w.weight;
    });
    combos.push({ mask, weight });
  }
  combos.sort((a, b) => b.weight - a.weight || a.mask - b.mask);
  for (const { mask, weight } of combos) {
    yield { terms: weights.filter((_, i) => mask & (1 << i)).map((w) => w.term), weight };
  }
}

/**
 * The smallest coverage a hit keeps: `floor` of the best coverage, less a
 * hair so the best hit itself passes whatever order its weights were summed in.
 */
export function minCoverage(floor: number, best: number): number {
  return floor * best - 1e-9;
}
