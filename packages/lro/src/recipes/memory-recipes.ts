import type { DetailLevel } from "../types.js";
import { shellQuote, shellWord } from "./shell-quote.js";

/** Names of the values a parameterized recipe takes (jq variables `$name`). */
export type RecipeParamName = "namespace" | "keyword" | "memory_type" | "tag" | "pattern";

/**
 * One recipe of the standard library, as data: the jq program refers to its
 * parameters as jq variables (`$namespace`), so `lro_extract` can pass them with
 * `--arg` semantics and never splice text; the shell command inlines them as
 * JSON string literals.
 */
export interface RecipeSpec {
  /** 1 to 10. */
  number: number;
  description: string;
  /** jq program run on each record line (or on the array of them when `slurp`). */
  filter: string;
  /** `jq -s`: the filter sees one array of every record. */
  slurp: boolean;
  /** `jq -r`: strings are printed raw. */
  raw: boolean;
  /** The jq variables the filter uses. */
  params: readonly RecipeParamName[];
}

/** The specification's example values, used when nothing better is known. */
export const DEFAULT_RECIPE_PARAMS: Readonly<Record<RecipeParamName, string>> = {
  namespace: "_semantic",
  keyword: "keyword",
  memory_type: "semantic",
  tag: "TAG",
  pattern: "pattern",
};

const universal: readonly RecipeSpec[] = [
  {
    number: 1,
    description: "List titles with namespaces",
    filter: "[.title, .namespace] | @tsv",
    slurp: false,
    raw: true,
    params: [],
  },
  {
    number: 2,
    description: "Filter by namespace prefix",
    filter: "select(.namespace | startswith($namespace))",
    slurp: false,
    raw: false,
    params: ["namespace"],
  },
  {
    number: 3,
    description: "Search titles by keyword",
    filter: 'select(.title | test($keyword; "i"))',
    slurp: false,
    raw: false,
    params: ["keyword"],
  },
  {
    number: 4,
    description: "Extract IDs and titles only",
    filter: "{id, title, namespace}",
    slurp: false,
    raw: false,
    params: [],
  },
  {
    number: 5,
    description: "Filter by memory type",
    filter: "select(.memory_type == $memory_type)",
    slurp: false,
    raw: false,
    params: ["memory_type"],
  },
  {
    number: 6,
    description: "Count by namespace",
    filter: "group_by(.namespace) | map({namespace: .[0].namespace, count: length})",
    slurp: true,
    raw: false,
    params: [],
  },
  {
    number: 7,
    description: "Filter by tag",
    filter: "select(.tags | index($tag))",
    slurp: false,
    raw: false,
    params: ["tag"],
  },
  {
    number: 8,
    description: "Sort by created date",
    filter: "sort_by(.created)",
    slurp: true,
    raw: false,
    params: [],
  },
];

const contentSearch: RecipeSpec = {
  number: 10,
  description: "Full-text search in content",
  filter: 'select(.content | test($pattern; "i"))',
  slurp: false,
  raw: false,
  params: ["pattern"],
};

/** Recipes 9 and 10 follow the specification's table for each detail level. */
const adaptive: Readonly<Record<DetailLevel, readonly [RecipeSpec, RecipeSpec]>> = {
  light: [
    {
      number: 9,
      description: "List unique namespaces",
      filter: "map(.namespace) | unique",
      slurp: true,
      raw: false,
      params: [],
    },
    {
      number: 10,
      description: "Count by memory_type",
      filter: "group_by(.memory_type) | map({memory_type: .[0].memory_type, count: length})",
      slurp: true,
      raw: false,
      params: [],
    },
  ],
  medium: [
    {
      number: 9,
      description: "Sort by confidence desc (.confidence)",
      filter: "sort_by(-(.confidence // 0))",
      slurp: true,
      raw: false,
      params: [],
    },
    contentSearch,
  ],
  full: [
    {
      number: 9,
      description: "Sort by confidence desc (.provenance.confidence)",
      filter: "sort_by(-(.provenance.confidence // 0))",
      slurp: true,
      raw: false,
      params: [],
    },
    contentSearch,
  ],
};

/** Exactly the ten recipes of the standard library at `detail`, numbered 1 to 10. */
export function memoryRecipes(detail: DetailLevel): readonly RecipeSpec[] {
  return [...universal, ...adaptive[detail]];
}

/** One recipe by number (1 to 10) at `detail`, or undefined. */
export function memoryRecipe(detail: DetailLevel, recipeNumber: number): RecipeSpec | undefined {
  return memoryRecipes(detail).find((r) => r.number === recipeNumber);
}

/**
 * The jq program with every parameter written in as a JSON string literal, for
 * a shell user. Values come from `values`, else {@link DEFAULT_RECIPE_PARAMS}.
 */
export function inlineRecipeParams(
  spec: RecipeSpec,
  values: Partial<Record<RecipeParamName, string>> = {},
): string {
  let filter = spec.filter;
  for (const name of spec.params) {
    const value = values[name] ?? DEFAULT_RECIPE_PARAMS[name];
    filter = filter.replaceAll(new RegExp(`\\$${name}\\b`, "g"), () => JSON.stringify(value));
  }
  return filter;
}

/**
 * The shell command of a recipe against `filePath`:
 * `tail -n +2 <path> | jq [-r] [-s] '<filter>'`, every word safe for POSIX sh
 * (the path quoted when it has any character a shell would interpret).
 */
export function renderRecipeCommand(
  spec: RecipeSpec,
  filePath: string,
  values: Partial<Record<RecipeParamName, string>> = {},
): string {
  const flags = `${spec.raw ? " -r" : ""}${spec.slurp ? " -s" : ""}`;
  return `tail -n +2 ${shellWord(filePath)} | jq${flags} ${shellQuote(inlineRecipeParams(spec, values))}`;
}
