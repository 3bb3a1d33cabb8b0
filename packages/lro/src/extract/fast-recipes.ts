/**
 * The checked fast path of the ten fixed recipes: the same output as jq (same
 * values, same order, same `-c` text), computed in TypeScript on records parsed
 * once and cached. "Checked" means each implementation verifies, record by
 * record, that it is inside the domain where it provably agrees with jq (types
 * jq would not reject, patterns that are plain words, text without the
 * characters Unicode case folding maps onto ASCII); anywhere else it returns
 * undefined and the caller runs the real jq. Implementations are keyed by the
 * recipe's exact filter text, so an edited recipe silently loses its fast path
 * instead of diverging from jq.
 */
import type { RecipeSpec } from "../recipes/recipe-spec.js";
import { jqCompare, jqDump, jqDumpText, stableOrder, tsvField } from "./jq-values.js";
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

type FastImpl = (
  data: FastRecords,
  params: Params,
  oracle: RegexOracle | undefined,
) => FastOutput | undefined | Promise<FastOutput | undefined>;

const asLines = (lines: string[]): FastOutput => ({ lines });
const asArray = (elements: string[]): FastOutput => ({
  lines: [`[${elements.join(",")}]`],
  elements,
});

const isAbsent = (v: unknown) => v === null || v === undefined;

/**
 * `select(.field | test($param; "i"))` (or `.field // ""` when `coalesce`: null
 * and false become ""; without it jq raises on them, so the fast path steps
 * aside). Texts the literal matcher cannot decide exactly go to `oracle` (jq)
 * in one batch.
 */
function selectTest(field: string, param: string, coalesce: boolean): FastImpl {
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
function countBy(field: string): FastImpl {
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
function sortBy(key: (r: Record<string, unknown>) => unknown, numeric: boolean): FastImpl {
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
function negatedConfidence(v: unknown): number | undefined {
  if (isAbsent(v) || v === false) return -0;
  return typeof v === "number" ? -v : undefined;
}

const IMPLEMENTATIONS: ReadonlyMap<string, FastImpl> = new Map<string, FastImpl>([
  [
    "[.title, .namespace] | @tsv",
    ({ records }) => {
      const out: string[] = [];
      for (const r of records) {
        const a = tsvField(r.title);
        const b = tsvField(r.namespace);
        if (a === undefined || b === undefined) return undefined;
        out.push(jqDumpText(JSON.stringify(`${a}\t${b}`)));
      }
      return asLines(out);
    },
  ],
  [
    "select(.namespace | startswith($namespace))",
    ({ records, lines }, params) => {
      const prefix = params.namespace ?? "";
      const out: string[] = [];
      for (let i = 0; i < records.length; i++) {
        const ns = (records[i] as Record<string, unknown>).namespace;
        if (typeof ns !== "string") return undefined;
        if (ns.startsWith(prefix)) out.push(lines[i] as string);
      }
      return asLines(out);
    },
  ],
  ['select(.title | test($keyword; "i"))', selectTest("title", "keyword", false)],
  ['select(.title // "" | test($keyword; "i"))', selectTest("title", "keyword", true)],
  [
    "{id, title, namespace}",
    ({ records }) =>
      asLines(
        records.map((r) =>
          jqDumpText(
            JSON.stringify({
              id: r.id ?? null,
              title: r.title ?? null,
              namespace: r.namespace ?? null,
            }),
          ),
        ),
      ),
  ],
  [
    "select(.memory_type == $memory_type)",
    ({ records, lines }, params) => {
      const wanted = params.memory_type;
      const out: string[] = [];
      for (let i = 0; i < records.length; i++) {
        if ((records[i] as Record<string, unknown>).memory_type === wanted)
          out.push(lines[i] as string);
      }
      return asLines(out);
    },
  ],
  ["group_by(.namespace) | map({namespace: .[0].namespace, count: length})", countBy("namespace")],
  [
    "select(.tags | index($tag))",
    ({ records, lines }, params) => {
      const tag = params.tag;
      const out: string[] = [];
      for (let i = 0; i < records.length; i++) {
        const tags = (records[i] as Record<string, unknown>).tags;
        if (isAbsent(tags)) continue; // `null | index(...)` is null: not selected
        if (!Array.isArray(tags)) return undefined; // strings index by substring, others raise
        if (tags.includes(tag)) out.push(lines[i] as string);
      }
      return asLines(out);
    },
  ],
  ["sort_by(.created)", sortBy((r) => r.created ?? null, false)],
  [
    "map(.namespace) | unique",
    ({ records }) => {
      const keys = records.map((r) => r.namespace);
      const order = stableOrder(keys);
      const parts: string[] = [];
      let last: unknown;
      for (let n = 0; n < order.length; n++) {
        const k = keys[order[n] as number];
        if (n > 0 && jqCompare(k, last) === 0) continue;
        parts.push(jqDump(k));
        last = k;
      }
      return asArray(parts);
    },
  ],
  [
    "group_by(.memory_type) | map({memory_type: .[0].memory_type, count: length})",
    countBy("memory_type"),
  ],
  ["sort_by(-(.confidence // 0))", sortBy((r) => negatedConfidence(r.confidence), true)],
  [
    "sort_by(-(.provenance.confidence // 0))",
    sortBy((r) => {
      const p = r.provenance;
      if (isAbsent(p)) return negatedConfidence(null);
      if (typeof p !== "object" || Array.isArray(p)) return undefined; // jq: cannot index
      return negatedConfidence((p as Record<string, unknown>).confidence);
    }, true),
  ],
  ['select(.content | test($pattern; "i"))', selectTest("content", "pattern", false)],
  ['select(.content // "" | test($pattern; "i"))', selectTest("content", "pattern", true)],
]);

/** The implemented filters that read all records as one array (`jq -s`). */
const SLURPED: ReadonlySet<string> = new Set([
  "group_by(.namespace) | map({namespace: .[0].namespace, count: length})",
  "sort_by(.created)",
  "map(.namespace) | unique",
  "group_by(.memory_type) | map({memory_type: .[0].memory_type, count: length})",
  "sort_by(-(.confidence // 0))",
  "sort_by(-(.provenance.confidence // 0))",
]);

/** True when `recipe` has a fast path (its filter text is one this module implements). */
export function hasFastPath(recipe: RecipeSpec): boolean {
  return IMPLEMENTATIONS.has(recipe.filter) && recipe.slurp === SLURPED.has(recipe.filter);
}

/**
 * Run `recipe` on `data` in TypeScript: the `jq -c` output lines, exactly as
 * jq would print them, or undefined when the fast path cannot vouch for the
 * result (the caller then runs jq). `oracle` settles the few regex tests plain
 * TypeScript cannot decide exactly; without it those make the recipe fall back.
 */
export async function runFastRecipe(
  recipe: RecipeSpec,
  data: FastRecords,
  params: Params,
  oracle?: RegexOracle,
): Promise<FastOutput | undefined> {
  if (!hasFastPath(recipe)) return undefined;
  return IMPLEMENTATIONS.get(recipe.filter)?.(data, params, oracle);
}
