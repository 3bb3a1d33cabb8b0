/**
 * The 23 conditions: the paper's 21 (E1 five strategies, E2 C1-C5, E2g C1g-C4g,
 * E3 Recipe/NoRecipe, E4 C1-C5 on filter tasks) plus two it did not run:
 * Native (descriptor with native guidance + `lro_extract`, no shell), which it
 * proposes, and E3 Recipe with the specification's library (the paper's E3
 * used its Appendix B library). E2 C5 is not run: as in the paper (Table 6's
 * C5 row is Table 3's Inline row), it reports the E1 Inline samples. One
 * table; everything else reads it.
 */
import type { TaskKind } from "../corpus/tasks.js";
import type { RecipeLibrary } from "../strategies/recipes.js";

export type Experiment = "e1" | "e2" | "e2g" | "e3" | "e4";
export const EXPERIMENTS: readonly Experiment[] = ["e1", "e2", "e2g", "e3", "e4"];

export type ToolName = "list_memories" | "bash" | "python_exec" | "read_file" | "lro_extract";

/** Which descriptor fields the agent sees (the ablation). `file_path` is always kept. */
export interface DescriptorFields {
  summary: boolean;
  schema: boolean;
  recipes: boolean;
  guidance: boolean;
}

export type Delivery =
  | { kind: "offload"; fields: DescriptorFields; native?: boolean; recipes?: RecipeLibrary }
  | { kind: "inline"; pageSize: number }
  | { kind: "summary"; pageSize: number };

export type PromptKind = "plain" | "lro" | "lro_guided";

export interface Condition {
  /** Stable id used in results: `e2g-c3g`. */
  id: string;
  experiment: Experiment;
  /** The paper's row label (`C4 Bare Pointer`). */
  label: string;
  taskKind: TaskKind;
  delivery: Delivery;
  tools: readonly ToolName[];
  prompt: PromptKind;
  /** False for conditions the paper did not run (Native, E3 spec library). */
  inPaper: boolean;
  /** Not run: the condition whose samples this one reports (E2 C5: E1 Inline). */
  samplesOf?: string;
}

/** The condition whose samples stand for `c` in results. */
export const samplesOf = (c: Condition) => c.samplesOf ?? c.id;

export const INLINE_PAGE_SIZE = 5;
export const SUMMARY_PAGE_SIZE = 10;

const FULL: DescriptorFields = { summary: true, schema: true, recipes: true, guidance: true };
const NO_RECIPES: DescriptorFields = { ...FULL, recipes: false };
const NO_SCHEMA: DescriptorFields = { ...FULL, schema: false };
const BARE: DescriptorFields = { summary: false, schema: false, recipes: false, guidance: false };

const SHELL_TOOLS: readonly ToolName[] = ["list_memories", "bash", "read_file"];
const INLINE = { kind: "inline", pageSize: INLINE_PAGE_SIZE } as const;

function lro(
  id: string,
  experiment: Experiment,
  label: string,
  fields: DescriptorFields,
  taskKind: TaskKind = "id_lookup",
  prompt: PromptKind = "lro",
): Condition {
  return {
    id,
    experiment,
    label,
    taskKind,
    delivery: { kind: "offload", fields },
    tools: SHELL_TOOLS,
    prompt,
    inPaper: true,
  };
}

function inline(id: string, experiment: Experiment, label: string, taskKind: TaskKind): Condition {
  return {
    id,
    experiment,
    label,
    taskKind,
    delivery: INLINE,
    tools: ["list_memories"],
    prompt: "plain",
    inPaper: true,
  };
}

export const CONDITIONS: readonly Condition[] = [
  lro("e1-lro", "e1", "LRO", FULL),
  inline("e1-inline", "e1", "Inline", "id_lookup"),
  {
    id: "e1-inline-code",
    experiment: "e1",
    label: "Inline+Code",
    taskKind: "id_lookup",
    delivery: INLINE,
    tools: ["list_memories", "python_exec"],
    prompt: "plain",
    inPaper: true,
  },
  {
    id: "e1-summary",
    experiment: "e1",
    label: "Summary",
    taskKind: "id_lookup",
    delivery: { kind: "summary", pageSize: SUMMARY_PAGE_SIZE },
    tools: ["list_memories"],
    prompt: "plain",
    inPaper: true,
  },
  {
    id: "e1-truncation",
    experiment: "e1",
    label: "Truncation",
    taskKind: "id_lookup",
    delivery: { kind: "offload", fields: FULL },
    tools: ["list_memories", "read_file"],
    prompt: "lro",
    inPaper: true,
  },
  {
    id: "e1-native",
    experiment: "e1",
    label: "Native (not in paper)",
    taskKind: "id_lookup",
    delivery: { kind: "offload", fields: FULL, native: true },
    tools: ["list_memories", "lro_extract"],
    prompt: "lro",
    inPaper: false,
  },
  lro("e2-c1", "e2", "C1 Full LRO", FULL),
  lro("e2-c2", "e2", "C2 No Recipes", NO_RECIPES),
  lro("e2-c3", "e2", "C3 No Schema", NO_SCHEMA),
  lro("e2-c4", "e2", "C4 Bare Pointer", BARE),
  { ...inline("e2-c5", "e2", "C5 Inline", "id_lookup"), samplesOf: "e1-inline" },
  lro("e2g-c1g", "e2g", "C1g Full LRO (guided)", FULL, "id_lookup", "lro_guided"),
  lro("e2g-c2g", "e2g", "C2g No Recipes (guided)", NO_RECIPES, "id_lookup", "lro_guided"),
  lro("e2g-c3g", "e2g", "C3g No Schema (guided)", NO_SCHEMA, "id_lookup", "lro_guided"),
  lro("e2g-c4g", "e2g", "C4g Bare Pointer (guided)", BARE, "id_lookup", "lro_guided"),
  {
    ...lro("e3-recipe", "e3", "Recipe", FULL),
    delivery: { kind: "offload", fields: FULL, recipes: "appendix-b" },
  },
  lro("e3-norecipe", "e3", "NoRecipe", NO_RECIPES),
  { ...lro("e3-recipe-spec", "e3", "Recipe (spec library, not in paper)", FULL), inPaper: false },
  lro("e4-c1", "e4", "C1 Full LRO", FULL, "aggregate_filter"),
  lro("e4-c2", "e4", "C2 No Recipes", NO_RECIPES, "aggregate_filter"),
  lro("e4-c3", "e4", "C3 No Schema", NO_SCHEMA, "aggregate_filter"),
  lro("e4-c4", "e4", "C4 Bare Pointer", BARE, "aggregate_filter"),
  inline("e4-c5", "e4", "C5 Full Inline", "aggregate_filter"),
];

/** The conditions to run for `conditions`: each one's sample source, once. */
export function runnable(conditions: readonly Condition[]): Condition[] {
  const ids = new Set(conditions.map(samplesOf));
  return CONDITIONS.filter((c) => ids.has(c.id));
}

export function conditionById(id: string): Condition | undefined {
  return CONDITIONS.find((c) => c.id === id);
}

/** Conditions of the named experiments (`all` for every one). */
export function conditionsFor(experiments: readonly string[]): Condition[] {
  const wanted = experiments.includes("all") ? EXPERIMENTS : experiments;
  for (const e of wanted) {
    if (!(EXPERIMENTS as readonly string[]).includes(e)) {
      throw new Error(
        `unknown experiment ${JSON.stringify(e)}; one of ${EXPERIMENTS.join(", ")}, all`,
      );
    }
  }
  return CONDITIONS.filter((c) => wanted.includes(c.experiment));
}
