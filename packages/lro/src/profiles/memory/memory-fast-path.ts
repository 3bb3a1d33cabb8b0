/**
 * The memory profile's fast path: TypeScript implementations of its ten
 * recipes' filters, each checked to print exactly what jq prints (see
 * `extract/fast-primitives.ts`), keyed by the filter text.
 */
import {
  asArray,
  asLines,
  countBy,
  type FastImpl,
  type FastPath,
  isAbsent,
  negatedOrZero,
  selectTest,
  sortBy,
} from "../../extract/fast-primitives.js";
import { jqCompare, jqDump, jqDumpText, stableOrder, tsvField } from "../../extract/jq-values.js";

const IMPLEMENTATIONS: ReadonlyMap<string, FastImpl> = new Map<string, FastImpl>([
  [
    "[.title,.namespace]|@tsv",
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
    "select(.namespace|startswith($namespace))",
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
    "{id,title,namespace}",
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
  ["group_by(.namespace)|map({namespace:.[0].namespace,count:length})", countBy("namespace")],
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
    "map(.namespace)|unique",
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
    "group_by(.memory_type)|map({memory_type:.[0].memory_type,count:length})",
    countBy("memory_type"),
  ],
  ["sort_by(-(.confidence // 0))", sortBy((r) => negatedOrZero(r.confidence), true)],
  [
    "sort_by(-(.provenance.confidence // 0))",
    sortBy((r) => {
      const p = r.provenance;
      if (isAbsent(p)) return negatedOrZero(null);
      if (typeof p !== "object" || Array.isArray(p)) return undefined; // jq: cannot index
      return negatedOrZero((p as Record<string, unknown>).confidence);
    }, true),
  ],
  ['select(.content | test($pattern; "i"))', selectTest("content", "pattern", false)],
  ['select(.content // "" | test($pattern; "i"))', selectTest("content", "pattern", true)],
]);

/** The implemented filters that read all records as one array (`jq -s`). */
const SLURPED: ReadonlySet<string> = new Set([
  "group_by(.namespace)|map({namespace:.[0].namespace,count:length})",
  "sort_by(.created)",
  "map(.namespace)|unique",
  "group_by(.memory_type)|map({memory_type:.[0].memory_type,count:length})",
  "sort_by(-(.confidence // 0))",
  "sort_by(-(.provenance.confidence // 0))",
]);

/** The memory recipes' fast paths, by filter text. */
export const MEMORY_FAST_PATHS: ReadonlyMap<string, FastPath> = new Map(
  [...IMPLEMENTATIONS].map(([filter, run]) => [filter, { slurp: SLURPED.has(filter), run }]),
);
