/**
 * The two task types of the paper. ID lookup: 12 UUIDs, 8 in the corpus and 4
 * not, "how many exist?" (answer 8). Aggregate filter: "how many memories in
 * namespace X have priority <op> Y and mention product Z in their content
 * (case-insensitive)?", ground truth between 3 and 50, computed here.
 */
import type { MemoryRecord } from "./records.js";
import { deriveSeed, mulberry32, pick, type Rng, shuffled, uuid } from "./rng.js";
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
    compare(r.priority, f.op, f.priority) &&
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
    `How many memories in namespace \`${f.namespace}\` have priority ${f.op} ${f.priority} and mention "${f.product}" in their content (case-insensitive)?`,
    "Priority is an integer from 1 (lowest) to 5 (highest).",
    "",
    ANSWER_INSTRUCTION,
  ].join("\n");
}

function filterTasks(rng: Rng, records: MemoryRecord[], scale: number, n: number) {
  const namespaces = [...new Set(records.map((r) => r.namespace))].sort();
  const candidates: Omit<FilterTask, "id" | "prompt">[] = [];
  for (const namespace of namespaces) {
    for (const [product] of PRODUCTS) {
      const cell = records.filter((r) =>
        matchesFilter(r, { namespace, op: ">=", priority: 1, product }),
      );
      for (const op of PRIORITY_OPS) {
        for (let priority = 1; priority <= 5; priority++) {
          const f = { namespace, op, priority, product };
          const answer = records.filter((r) => matchesFilter(r, f)).length;
          // The priority clause must exclude something, or it tests nothing.
          if (answer < FILTER_TRUTH_MIN || answer > FILTER_TRUTH_MAX || answer === cell.length)
            continue;
          candidates.push({ kind: "aggregate_filter", scale, ...f, answer });
        }
      }
    }
  }
  if (candidates.length === 0) throw new Error(`no filter task fits 3-50 at scale ${scale}`);
  const order = shuffled(rng, candidates);
  const tasks: FilterTask[] = [];
  for (let i = 0; i < n; i++) {
    // Fewer candidates than tasks (tiny corpora) repeats them in a fresh order.
    const c = order[i % order.length] ?? pick(rng, candidates);
    tasks.push({
      ...c,
      id: `filter-${scale}-${String(i + 1).padStart(2, "0")}`,
      prompt: filterPrompt(c),
    });
  }
  return tasks;
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
