/**
 * Reciprocal rank fusion of hybrid recall, in one place. A memory's fused
 * value is
 *
 *   f = W_LEXICAL / (K + lexical rank) + W_VECTOR / (K + vector rank)
 *
 * with ranks from 1 and a term of 0 for a list the memory is not in, and the
 * score recall shows is f / ((W_LEXICAL + W_VECTOR) / (K + 1)), in (0, 1]: 1
 * for a memory first in both lists. K = 60 is the value of Cormack, Clarke and
 * Büttcher (SIGIR 2009), which damps the head of each list so neither decides
 * alone; equal weights trust words and meaning alike. The lexical list is
 * every lexical match ranked by recall's score (relevance, confidence,
 * recency); the vector list is at most VECTOR_CANDIDATES memories at least
 * `[embeddings] min_similarity_percent` cosine-similar to the query, so a
 * memory no word of the query reaches still joins the set by meaning, while
 * the rest of the corpus does not.
 */

/** The fusion's rank constant. */
const RRF_K = 60;

/** Weight of the lexical rank. */
const W_LEXICAL = 1;

/** Weight of the vector rank. */
const W_VECTOR = 1;

/** Longest vector list fused (nearest first). */
export const VECTOR_CANDIDATES = 100;

/** The fused value of ranks (1-based; undefined: not in that list). */
export function fusedValue(
  lexicalRank: number | undefined,
  vectorRank: number | undefined,
): number {
  return (
    (lexicalRank === undefined ? 0 : W_LEXICAL / (RRF_K + lexicalRank)) +
    (vectorRank === undefined ? 0 : W_VECTOR / (RRF_K + vectorRank))
  );
}

/** The fused value scaled into (0, 1]. */
export function fusedScore(value: number): number {
  return value / ((W_LEXICAL + W_VECTOR) / (RRF_K + 1));
}
