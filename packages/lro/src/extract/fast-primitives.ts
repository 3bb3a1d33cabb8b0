/**
 * Building blocks of the checked fast path of fixed recipes: the same output as jq (same
 * values, same order, same `-c` text), computed in TypeScript on records parsed
 * once and cached. "Checked" means each implementation verifies, record by
 * record, that it is inside the domain where it provably agrees with jq (types
 * jq would not reject, patterns that are plain words, text without the
 * characters Unicode case folding maps onto ASCII); anywhere else it returns
 * undefined and the caller runs the real jq. Implementations are keyed by the
 * recipe's exact filter text, so an edited recipe silently loses its fast path
 * instead of diverging from jq. The tables of implemented filters belong to
 * the profiles (`Profile.fastPaths`).
 */
import { jqCompare, jqDump, stableOrder } from "./jq-values.js";
import { literalMatcher } from "./literal-match.js";

/** Records of one file, admitted to the fast path (see `parse-records.ts`). */
export interface FastRecords {
  /** The parsed record objects. */
  readonly records: readonly Record<string, unknown>[];
  /** `jq -c` text of each record (the line itself, DEL escaped). */
  readonly lines: readonly string[];
}

type Params = Readonly<Record<string, string>>;

/**
 * Decides `test($pattern; "i")` for texts the TypeScript matcher cannot vouch
 * for (those with characters that case-fold onto ASCII), by asking jq itself;
 * undefined gives up (the caller then runs the whole recipe in jq).
 */
export type RegexOracle = (texts: string[], pattern: string) => Promise<boolean[] | undefined>;

/** What the fast path printed: jq's output lines; for a single array, also its elements' texts. */
export interface FastOutput {
  lines: string[];
  /** When the output is one array: the `-c` text of each element (for re-offloading). */
  elements?: string[];
}

/** A fast implementation of one filter: jq's output, or undefined to let jq answer. */
export type FastImpl = (
  data: FastRecords,
  params: Params,
  oracle: RegexOracle | undefined,
) => FastOutput | undefined | Promise<FastOutput | undefined>;

export const asLines = (lines: string[]): FastOutput => ({ lines });
export const asArray = (elements: string[]): FastOutput => ({
  lines: [`[${elements.join(",")}]`],
  elements,
});

export const isAbsent = (v: unknown) => v === null || v === undefined;

/**
 * `select(.field | test($param; "i"))` (or `.field // ""` when `coalesce`: null
 * and false become ""; without it jq raises on them, so the fast path steps
 * aside). Texts the literal matcher cannot decide exactly go to `oracle` (jq)
 * in one batch.
 */
export function selectTest(field: string, param: string, coalesce: boolean): FastImpl {
  return async ({ records, lines }, params, oracle) => {
    const pattern = params[param] ?? "";
    const match = literalMatcher(pattern);
    if (!match) return undefined;
    const hits: (boolean | undefined)[] = new Array(records.length);
    const undecided: number[] = [];
    for (let i = 0; i < records.length; i++) {
      let v = (records[i] as Record<string, unknown>)[field];
      if (coalesce && (isAbsent(v) || v === false)) v = "";
      if (typeof v !== "string") return undefined;
      const hit = match(v);
      if (hit === undefined) undecided.push(i);
      hits[i] = hit;
    }
    if (undecided.length > 0) {
      const texts = undecided.map((i) => {
        const v = (records[i] as Record<string, unknown>)[field];
        return typeof v === "string" ? v : "";
      });
      const answers = oracle ? await oracle(texts, pattern) : undefined;
      if (!answers || answers.length !== undecided.length) return undefined;
      undecided.forEach((i, n) => {
        hits[i] = answers[n];
      });
    }
    const out: string[] = [];
    for (let i = 0; i < records.length; i++) if (hits[i]) out.push(lines[i] as string);
    return asLines(out);
  };
}

/** `group_by(.field) | map({field: .[0].field, count: length})`, one line. */
export function countBy(field: string): FastImpl {
  return ({ records }) => {
    const keys = records.map((r) => r[field]);
    const order = stableOrder(keys);
    const parts: string[] = [];
    let start = 0;
    while (start < order.length) {
      const key = keys[order[start] as number];
      let end = start + 1;
      while (end < order.length && jqCompare(keys[order[end] as number], key) === 0) end++;
      parts.push(`{${JSON.stringify(field)}:${jqDump(key)},"count":${end - start}}`);
      start = end;
    }
    return asArray(parts);
  };
}

/** `sort_by(key)`, one line; `key` returns undefined where jq would raise an error. */
export function sortBy(key: (r: Record<string, unknown>) => unknown, numeric: boolean): FastImpl {
  return ({ records, lines }) => {
    const keys: unknown[] = new Array(records.length);
    for (let i = 0; i < records.length; i++) {
      const k = key(records[i] as Record<string, unknown>);
      if (k === undefined) return undefined;
      keys[i] = k;
    }
    const order = stableOrder(keys, numeric);
    return asArray(order.map((i) => lines[i] as string));
  };
}

/** `-(x // 0)` as jq computes it, or undefined where jq raises an error. */
export function negatedOrZero(v: unknown): number | undefined {
  if (isAbsent(v) || v === false) return -0;
  return typeof v === "number" ? -v : undefined;
}

/** A fast implementation keyed by its filter text, and whether that filter reads all records at once. */
export interface FastPath {
  slurp: boolean;
  run: FastImpl;
}
