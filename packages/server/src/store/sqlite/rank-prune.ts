/**
 * Candidate pruning for ranked recall (a MaxScore-style bound, exact by
 * construction). bm25 costs about 2 µs per matching row, so a two-word query
 * whose words are common (25,000 of 100,000 memories) spends 50 ms scoring rows
 * that cannot reach the first page. Instead:
 *
 * 1. Count the memories matching each word (cheap: no scoring).
 * 2. Split the words into rare and common ones. Candidates P are the memories
 *    matching any rare word, or every common word when there are two or more.
 *    Any other memory matches only a strict subset of the common words, so its
 *    bm25 is at most x_rest = sum of their bounds minus the smallest (or the
 *    one common word's bound when there is a single one), where a word's bound
 *    is 2.2 x IDF: bm25's per-term factor f (k1 + 1) / (f + K) stays below
 *    k1 + 1 = 2.2 for every frequency f and length, and IDF is computed from
 *    an upper bound of the row count, so it only overestimates.
 * 3. Rank P exactly (bm25 still over the whole query). If the page is full and
 *    its last score beats S_rest = w_r r(x_rest) + w_c * 1 + w_t * recency of
 *    the most recently modified memory, no memory outside P can be on the page,
 *    and the page is the exact answer. Otherwise the caller ranks every match.
 *
 * With coverage weights (`term-coverage.ts`), a memory outside P carries at
 * most c_rest = the same subset's weight (sum of the common words' weights
 * minus the smallest, or the one common word's), so its relevance is at most
 * x_rest * c_rest^2; and when c_rest is below the relevance floor's smallest
 * coverage, no memory outside P is a hit at all: P's ranking is the answer
 * even when its page is short (a filter or the floor thinning P).
 */
import type { Scoring } from "../store.js";

/** bm25's k1 in FTS5. */
const K1 = 1.2;

/**
 * Words matching more than this share of all rows (and at least 1000) count as
 * common. Rarer words have a high IDF, hence a high bound, and a split on them
 * rarely proves anything: the attempt would only add to the full ranking.
 */
const COMMON_SHARE = 0.05;

/** Minimum rows of a common word. */
const COMMON_MIN_ROWS = 1000;

/** Below this many matches in total, ranking everything is cheap enough. */
const PRUNE_MIN_MATCHES = 4000;

export interface PrunePlan {
  /** FTS5 expression of the candidate set P. */
  within: string;
  /** No memory outside P scores above this. */
  restBound: number;
  /** No memory outside P passes the relevance floor: P's ranking is exact whatever its length. */
  restExcluded: boolean;
}

interface PruneInputs {
  /** One FTS5 phrase per query word (as in the OR query). */
  phrases: readonly string[];
  /** Rows matching each phrase, same order. */
  hits: readonly number[];
  /** An upper bound of the rows in the full-text index. */
  rowsUpperBound: number;
  /** Latest `modified_ms` of any memory (undefined when the store is empty). */
  latestModified: number | undefined;
  scoring: Scoring;
  /** Each phrase's coverage weight, same order (see `term-coverage.ts`); absent without coverage. */
  weights?: readonly (number | undefined)[] | undefined;
  /** The relevance floor's smallest coverage, if the query has a floor. */
  minCoverage?: number | undefined;
}

/** FTS5's IDF: log((N - n + 0.5) / (n + 0.5)), floored at 1e-6. */
function idf(rows: number, hits: number): number {
  const value = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return Math.max(value, 1e-6);
}

/** A plan, or undefined when pruning cannot pay off (then rank every match). */
export function planPrune(inputs: PruneInputs): PrunePlan | undefined {
  const { phrases, hits, rowsUpperBound, scoring } = inputs;
  const w = scoring.weights;
  if (w.relevance <= 0 || w.confidence < 0 || w.recency < 0) return undefined;
  const total = hits.reduce((a, b) => a + b, 0);
  if (total < PRUNE_MIN_MATCHES) return undefined;

  const common = Math.max(COMMON_MIN_ROWS, rowsUpperBound * COMMON_SHARE);
  const rare: string[] = [];
  const often: { phrase: string; bound: number; weight: number }[] = [];
  phrases.forEach((phrase, i) => {
    const n = hits[i] ?? 0;
    if (n === 0) return; // matches nothing: neither a candidate nor a score
    // Without a weight a phrase may cover everything (coverage is at most 1).
    const weight = inputs.weights ? (inputs.weights[i] ?? 1) : 1;
    if (n > common) often.push({ phrase, bound: (K1 + 1) * idf(rowsUpperBound, n), weight });
    else rare.push(phrase);
  });
  if (often.length === 0) return undefined; // every word is rare: P would be everything
  if (often.length === 1 && rare.length === 0) return undefined; // one common word: no split

  const parts = [...rare];
  let restX: number;
  let restCoverage: number;
  if (often.length >= 2) {
    parts.push(`(${often.map((o) => o.phrase).join(" AND ")})`);
    const sum = often.reduce((a, o) => a + o.bound, 0);
    restX = sum - Math.min(...often.map((o) => o.bound));
    const weights = often.reduce((a, o) => a + o.weight, 0);
    restCoverage = weights - Math.min(...often.map((o) => o.weight));
  } else {
    restX = often[0]?.bound ?? 0;
    restCoverage = often[0]?.weight ?? 1;
  }
  // A hair above: SQLite sums a row's weights in its own order.
  restCoverage = Math.min(1, restCoverage + 1e-9);
  if (inputs.weights) restX *= restCoverage ** 2;
  const recency =
    inputs.latestModified === undefined
      ? 0
      : Math.min(
          1,
          0.5 ** (Math.max(0, scoring.asOf - inputs.latestModified) / scoring.halfLifeMs),
        );
  const restBound =
    w.relevance * (restX / (restX + scoring.relevanceHalf)) +
    w.confidence * 1 +
    w.recency * recency;
  const restExcluded = inputs.minCoverage !== undefined && restCoverage < inputs.minCoverage;
  return { within: parts.join(" OR "), restBound, restExcluded };
}
