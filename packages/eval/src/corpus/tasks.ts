/**
 * The two task types of the paper. ID lookup: 12 UUIDs, 8 in the corpus and 4
 * not, "how many exist?" (answer 8). Aggregate filter, in the paper's words:
 * "How many memories in namespace X have priority Y and mention product Z in
 * their content?": an exact namespace, a comparison on the nested
 * `extensions.priority`, a case-insensitive content search, in conjunction.
 * The prompt gives no more than that (no field path, no case rule, no range).
 * Ground truth between 3 and 50, computed here; the 15 tasks of a scale are
 * distinct record sets with truths spread over the range the scale allows.
 */
import type { MemoryRecord } from "./records.js";
import { deriveSeed, mulberry32, type Rng, shuffled, uuid } from "./rng.js";
import { PRODUCTS } from "./vocabulary.js";

export const ID_LOOKUP_PRESENT = 8;
export const ID_LOOKUP_ABSENT = 4;
/** Ground truth bounds of aggregate-filter tasks (the paper's 3-50). */
export const FILTER_TRUTH_MIN = 3;
export const FILTER_TRUTH_MAX = 50;

export const ANSWER_INSTRUCTION =
  "When you are done, reply with your final answer on its own line as `ANSWER: <number>`.";

export interface IdLookupTask {
  kind: "id_lookup";
  id: string;
  scale: number;
  prompt: string;
  ids: string[];
  answer: number;
}

export type PriorityOp = ">" | ">=" | "<" | "<=" | "==";
export const PRIORITY_OPS: readonly PriorityOp[] = [">", ">=", "<", "<=", "=="];

export interface FilterTask {
  kind: "aggregate_filter";
  id: string;
  scale: number;
  prompt: string;
  namespace: string;
  op: PriorityOp;
  priority: number;
  product: string;
  answer: number;
}

export type Task = IdLookupTask | FilterTask;
export type TaskKind = Task["kind"];

function compare(a: number, op: PriorityOp, b: number): boolean {
  switch (op) {
    case ">":
      return a > b;
    case ">=":
      return a >= b;
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    default:
      return a === b;
  }
}

/** The filter's predicate on one record (the ground-truth definition). */
export function matchesFilter(
  r: MemoryRecord,
  f: Pick<FilterTask, "namespace" | "op" | "priority" | "product">,
): boolean {
  return (
    r.namespace === f.namespace &&
    compare(r.extensions.priority, f.op, f.priority) &&
    r.content.toLowerCase().includes(f.product.toLowerCase())
  );
}

function idLookupTasks(rng: Rng, records: MemoryRecord[], scale: number, n: number) {
  const known = new Set(records.map((r) => r.id));
  const tasks: IdLookupTask[] = [];
  for (let i = 0; i < n; i++) {
    const present = shuffled(rng, records)
      .slice(0, ID_LOOKUP_PRESENT)
      .map((r) => r.id);
    const absent: string[] = [];
    while (absent.length < ID_LOOKUP_ABSENT) {
      const id = uuid(rng);
      if (!known.has(id) && !absent.includes(id)) absent.push(id);
    }
    const ids = shuffled(rng, [...present, ...absent]);
    tasks.push({
      kind: "id_lookup",
      id: `id-${scale}-${String(i + 1).padStart(2, "0")}`,
      scale,
      prompt: [
        "Determine how many of these IDs exist in the memory store:",
        ...ids.map((id) => `- ${id}`),
        "",
        ANSWER_INSTRUCTION,
      ].join("\n"),
      ids,
      answer: ID_LOOKUP_PRESENT,
    });
  }
  return tasks;
}

function filterPrompt(f: Pick<FilterTask, "namespace" | "op" | "priority" | "product">): string {
  return [
    `How many memories in namespace ${f.namespace} have priority ${f.op} ${f.priority} and mention product ${f.product} in their content?`,
    "",
    ANSWER_INSTRUCTION,
  ].join("\n");
}

type Candidate = Omit<FilterTask, "id" | "prompt">;

/** Every filter whose truth is 3-50 and whose priority clause excludes something, one per record set. */
function filterCandidates(rng: Rng, records: MemoryRecord[], scale: number): Candidate[] {
  const namespaces = [...new Set(records.map((r) => r.namespace))].sort();
  const bySet = new Map<string, Candidate>();
  for (const namespace of namespaces) {
    for (const [product] of PRODUCTS) {
      const cell = records.filter((r) =>
        matchesFilter(r, { namespace, op: ">=", priority: 1, product }),
      );
      // A random operator order, so the operator kept for a record set varies.
      for (const op of shuffled(rng, PRIORITY_OPS)) {
        for (let priority = 1; priority <= 5; priority++) {
          const f = { namespace, op, priority, product };
          const hits = cell.filter((r) => matchesFilter(r, f));
          if (hits.length < FILTER_TRUTH_MIN || hits.length > FILTER_TRUTH_MAX) continue;
          if (hits.length === cell.length) continue;
          // `> 2` and `>= 3` select the same records: one question, kept once.
          const key = hits.map((r) => r.id).join(",");
          if (!bySet.has(key))
            bySet.set(key, { kind: "aggregate_filter", scale, ...f, answer: hits.length });
        }
      }
    }
  }
  return [...bySet.values()];
}

/**
 * `n` distinct tasks whose truths are spread evenly over the distinct truths
 * the corpus offers (lowest to highest), each drawn at random among the
 * candidates with that truth; a truth is reused only when there are fewer
 * distinct truths than tasks.
 */
function filterTasks(rng: Rng, records: MemoryRecord[], scale: number, n: number) {
  const pool = new Map<number, Candidate[]>();
  for (const c of shuffled(rng, filterCandidates(rng, records, scale))) {
    pool.set(c.answer, [...(pool.get(c.answer) ?? []), c]);
  }
  const truths = [...pool.keys()].sort((a, b) => a - b);
  const total = [...pool.values()].reduce((a, g) => a + g.length, 0);
  if (total < n) throw new Error(`only ${total} distinct filter tasks fit 3-50 at scale ${scale}`);
  const chosen: Candidate[] = [];
  const targets = Array.from({ length: n }, (_, i) =>
    Math.round((i * (truths.length - 1)) / Math.max(1, n - 1)),
  );
  const take = (i: number) => pool.get(truths[i] as number)?.shift();
  for (let round = 0; chosen.length < n; round++) {
    for (const t of round === 0 ? targets : truths.map((_, i) => i)) {
      if (chosen.length === n) break;
      // The nearest truth (upwards, then downwards) that still has an unused candidate.
      for (let d = 0; d < truths.length; d++) {
        const c = take(t + d) ?? take(t - d);
        if (c) {
          chosen.push(c);
          break;
        }
      }
    }
  }
  return shuffled(rng, chosen).map((c, i) => ({
    ...c,
    id: `filter-${scale}-${String(i + 1).padStart(2, "0")}`,
    prompt: filterPrompt(c),
  }));
}

/** Tasks of both kinds for one corpus. */
export function generateTasks(
  seed: number,
  records: MemoryRecord[],
  scale: number,
  count: number,
): { idLookup: IdLookupTask[]; filter: FilterTask[] } {
  return {
    idLookup: idLookupTasks(mulberry32(deriveSeed(seed, `id:${scale}`)), records, scale, count),
    filter: filterTasks(mulberry32(deriveSeed(seed, `filter:${scale}`)), records, scale, count),
  };
}
