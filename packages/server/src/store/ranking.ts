/**
 * Ranking logic every backend shares: the SQL of the {@link Scoring} blend and
 * the re-anchoring of ranked cursors (see {@link RankPosition}). Backends supply
 * their SQL spelling and a way to re-score anchors; the rules live here once.
 */
import type { RankPosition, Scoring } from "./store.js";

/** How a backend spells the pieces of the score expression. */
interface ScoreDialect {
  /** Bind `value` and return its placeholder (`?`, `$3`, ...), in textual order. */
  param(value: number): string;
  /** Larger of two numbers (`max` in SQLite, `greatest` in PostgreSQL). */
  greatest: string;
  /** Power function (`pow` / `power`). */
  power: string;
}

/**
 * The SQL of {@link Scoring} over relevance expression `x`, confidence column
 * `confidence` and modification time column `modifiedMs` (epoch ms):
 *
 *   w.relevance * x / (x + half) + w.confidence * coalesce(c, default)
 *     + w.recency * 0.5 ^ (max(0, asOf - modified) / halfLife)
 */
export function scoreSql(
  x: string,
  columns: { confidence: string; modifiedMs: string },
  scoring: Scoring,
  d: ScoreDialect,
): string {
  const w = scoring.weights;
  return `(${d.param(w.relevance)} * ((${x}) / ((${x}) + ${d.param(scoring.relevanceHalf)})) + ${d.param(w.confidence)} * coalesce(${columns.confidence}, ${d.param(scoring.defaultConfidence)}) + ${d.param(w.recency)} * ${d.power}(0.5, ${d.greatest}(0.0, ${d.param(scoring.asOf)} - ${columns.modifiedMs}) / ${d.param(scoring.halfLifeMs)}))`;
}

/** A resolved keyset position: continue strictly after (value desc, seq asc). */
export interface Keyset {
  value: number;
  seq: number;
}

/**
 * The memories whose current value a backend must look up to resume after
 * `after` (the anchor, then its fallbacks, nearest first), or `undefined` when
 * the position is exact as it is: no position, or one issued at the store's
 * current write epoch (nothing moved since).
 */
function anchorSeqs(
  after: RankPosition | undefined,
  epoch: number | undefined,
): number[] | undefined {
  if (!after) return undefined;
  if (epoch !== undefined && after.epoch === epoch) return undefined;
  return [after.seq, ...(after.previous ?? [])];
}

/**
 * Where a page continues: after the anchor memory at its *current* value when
 * it is still a hit (else after the first previous hit that is), because
 * relevance may have drifted (bm25 reads corpus statistics; an updated memory
 * scores anew), and comparing against the stale value would repeat or skip hits
 * near the page boundary. Only when no anchor is left does the stored value
 * serve. `current` maps sequence numbers to their value now (hits only).
 */
export function resumeAfter(
  after: RankPosition | undefined,
  epoch: number | undefined,
  current: (seqs: number[]) => ReadonlyMap<number, number>,
): Keyset | undefined {
  if (!after) return undefined;
  const seqs = anchorSeqs(after, epoch);
  if (!seqs) return { value: after.value, seq: after.seq };
  const values = current(seqs);
  for (const seq of seqs) {
    const value = values.get(seq);
    if (value !== undefined) return { value, seq };
  }
  return { value: after.value, seq: after.seq };
}

/** {@link resumeAfter} for a backend whose look-up is asynchronous. */
export async function resumeAfterAsync(
  after: RankPosition | undefined,
  epoch: number | undefined,
  current: (seqs: number[]) => Promise<ReadonlyMap<number, number>>,
): Promise<Keyset | undefined> {
  const seqs = anchorSeqs(after, epoch);
  const values = seqs ? await current(seqs) : new Map<number, number>();
  return resumeAfter(after, epoch, () => values);
}
