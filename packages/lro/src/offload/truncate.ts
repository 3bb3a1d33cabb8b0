/**
 * The write-failure fallback: keep the leading lines of the result whose
 * estimated cost, plus the warning that goes with them, fits the threshold.
 */
import type { LinesEstimate } from "../estimate/estimate.js";

/**
 * How many leading lines fit in `budgetTokens` when returned as one JSON array
 * (a comma per line counted), and what they cost. Non-Latin lines use their
 * tokenized counts.
 */
export function linesThatFit(
  lines: readonly string[],
  estimate: Pick<LinesEstimate, "tokenized">,
  budgetTokens: number,
): { count: number; tokens: number } {
  let chars = 0;
  let tokens = 0;
  for (let i = 0; i < lines.length; i++) {
    const counted = estimate.tokenized.get(i);
    let nextChars = chars + 1;
    let nextTokens = tokens;
    if (counted === undefined) nextChars += (lines[i] as string).length;
    else nextTokens += counted;
    if (Math.ceil(nextChars / 4) + nextTokens > budgetTokens) {
      return { count: i, tokens: Math.ceil(chars / 4) + tokens };
    }
    chars = nextChars;
    tokens = nextTokens;
  }
  return { count: lines.length, tokens: Math.ceil(chars / 4) + tokens };
}

/** The warning of a truncated fallback. */
export function truncationWarning(
  reason: string,
  kept: number,
  total: number,
  threshold: number,
): string {
  return (
    `Offloading the result to a file failed (${reason}), so it is returned inline ` +
    `and truncated: ${kept} of ${total} records, to fit ${threshold} tokens.`
  );
}

/** The warning of a truncated text fallback (a tool's own inline text, e.g. Markdown). */
export function textTruncationWarning(
  reason: string,
  keptChars: number,
  totalChars: number,
  threshold: number,
): string {
  return (
    `Offloading the result to a file failed (${reason}), so its inline text is returned ` +
    `and truncated: ${keptChars} of ${totalChars} characters, to fit ${threshold} tokens.`
  );
}

/** Tokens reserved for the payload around the kept lines (keys, counts, warning). */
function reserveFor(warning: string): number {
  return Math.ceil((warning.length + 96) / 4);
}

/** What the fallback keeps of a result, and the warning saying exactly that. */
interface Fitted {
  /** Lines (or characters, for text) kept from the start. */
  kept: number;
  warning: string;
}

/**
 * The write-failure fallback's one rule: keep what fits the threshold together
 * with its warning. The budget is the threshold minus the widest warning (all
 * `total` kept); `fit(budgetTokens)` says how much of the result fits it
 * ({@link linesThatFit} for lines), and the warning then counts what was kept.
 */
export function fitToThreshold(
  threshold: number,
  total: number,
  warning: (kept: number) => string,
  fit: (budgetTokens: number) => number,
): Fitted {
  const kept = fit(threshold - reserveFor(warning(total)));
  return { kept, warning: warning(kept) };
}
