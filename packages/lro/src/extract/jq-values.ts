/**
 * jq's value semantics, re-stated in TypeScript for the fast path of the fixed
 * recipes: the total order of `sort`/`group_by`/`unique`, `-c` output, and
 * `@tsv`. Each function matches jq 1.7.1 (what `jq-web` runs) on the values the
 * fast path admits; the extraction tests compare them against jq itself.
 */

/** jq's type rank: null < false < true < numbers < strings < arrays < objects. */
function rank(v: unknown): number {
  if (v === null || v === undefined) return 0;
  if (v === false) return 1;
  if (v === true) return 2;
  if (typeof v === "number") return 3;
  if (typeof v === "string") return 4;
  if (Array.isArray(v)) return 5;
  return 6;
}

/** Astral characters (surrogates) or the U+E000–U+FFFF range: UTF-16 order differs from code point order. */
const NEEDS_CODE_POINTS = /[\ud800-\uffff]/;

/**
 * jq compares strings byte-wise in UTF-8, which is code point order; JavaScript's
 * `<` compares UTF-16 units, which differs only when a surrogate pair meets a
 * character in U+E000–U+FFFF.
 */
function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  if (!NEEDS_CODE_POINTS.test(a) && !NEEDS_CODE_POINTS.test(b)) return a < b ? -1 : 1;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const cx = x.value.codePointAt(0) as number;
    const cy = y.value.codePointAt(0) as number;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

/**
 * jq's total order of JSON values (`jv_cmp`): by type rank, then numbers by
 * value, strings by code point, arrays element-wise then by length, objects by
 * their sorted key lists and then by the values under those keys in key order.
 * `undefined` (a missing field) is jq's `null`.
 */
export function jqCompare(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 3: {
      const x = a as number;
      const y = b as number;
      return x < y ? -1 : x === y ? 0 : 1;
    }
    case 4:
      return compareStrings(a as string, b as string);
    case 5: {
      const x = a as unknown[];
      const y = b as unknown[];
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const r = jqCompare(x[i], y[i]);
        if (r !== 0) return r;
      }
      return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
    }
    case 6: {
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      const kx = Object.keys(x).sort(compareStrings);
      const ky = Object.keys(y).sort(compareStrings);
      const r = jqCompare(kx, ky);
      if (r !== 0) return r;
      for (const k of kx) {
        const rv = jqCompare(x[k], y[k]);
        if (rv !== 0) return rv;
      }
      return 0;
    }
    default:
      return 0;
  }
}

/**
 * `jq -c` text of a value that came from canonical JSON: jq prints exactly
 * `JSON.stringify`'s text except that it escapes DEL (U+007F).
 */
export function jqDump(value: unknown): string {
  return jqDumpText(JSON.stringify(value === undefined ? null : value));
}

/** {@link jqDump} for text already produced by `JSON.stringify`. */
export function jqDumpText(json: string): string {
  return json.includes("\u007f") ? json.replaceAll("\u007f", "\\u007f") : json;
}

const TSV_ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\\\",
  "\t": "\\t",
  "\n": "\\n",
  "\r": "\\r",
  "\0": "\\0",
};

/**
 * One `@tsv` field for a string or null (jq 1.7.1: `\`, tab, newline, carriage
 * return and NUL escaped; null is empty). Other types return undefined (the
 * caller falls back to jq).
 */
export function tsvField(v: unknown): string | undefined {
  if (v === null || v === undefined) return "";
  if (typeof v !== "string") return undefined;
  return /[\\\t\n\r\0]/.test(v) ? v.replace(/[\\\t\n\r\0]/g, (c) => TSV_ESCAPES[c] ?? c) : v;
}

/**
 * `sort_by(f)` / `group_by(f)` decoration: a stable sort of `items` by `keys`
 * under jq's order (jq sorts `[f]` entries and breaks ties by position).
 */
export function stableOrder(keys: readonly unknown[], numeric = false): number[] {
  const idx = keys.map((_, i) => i);
  if (numeric) {
    const k = keys as readonly number[];
    idx.sort((i, j) => {
      const a = k[i] as number;
      const b = k[j] as number;
      return a < b ? -1 : a > b ? 1 : i - j;
    });
  } else {
    idx.sort((i, j) => jqCompare(keys[i], keys[j]) || i - j);
  }
  return idx;
}
