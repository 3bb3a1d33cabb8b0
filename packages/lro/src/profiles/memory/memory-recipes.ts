/**
 * The memory profile's standard library: exactly the specification's ten
 * recipes, 9 and 10 adapted to the detail level. Their jq is the table's
 * without the spaces jq does not need: each is an o200k token, and every
 * descriptor carries all ten.
 */
import { inlineJqParams, type RecipeSpec, renderJqCommand } from "../../recipes/recipe-spec.js";
import type { DetailLevel } from "../../types.js";

/** Names of the values a parameterized recipe takes (jq variables `$name`). */
export type RecipeParamName = "namespace" | "keyword" | "memory_type" | "tag" | "pattern";

/** A memory recipe: its parameters are the memory profile's names. */
export type MemoryRecipeSpec = RecipeSpec<RecipeParamName>;

/** The specification's example values, used when nothing better is known. */
export const DEFAULT_RECIPE_PARAMS: Readonly<Record<RecipeParamName, string>> = {
  namespace: "_semantic",
  keyword: "keyword",
  memory_type: "semantic",
  tag: "TAG",
  pattern: "pattern",
};

const universal: readonly MemoryRecipeSpec[] = [
  {
    number: 1,
    description: "List titles with namespaces",
    filter: "[.title,.namespace]|@tsv",
    slurp: false,
    raw: true,
    params: [],
  },
  {
    number: 2,
    description: "Filter by namespace prefix",
    filter: "select(.namespace|startswith($namespace))",
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
    filter: "{id,title,namespace}",
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
    filter: "group_by(.namespace)|map({namespace:.[0].namespace,count:length})",
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

const contentSearch: MemoryRecipeSpec = {
  number: 10,
  description: "Full-text search in content",
  filter: 'select(.content | test($pattern; "i"))',
  slurp: false,
  raw: false,
  params: ["pattern"],
};

/** Recipes 9 and 10 follow the specification's table for each detail level. */
const adaptive: Readonly<Record<DetailLevel, readonly [MemoryRecipeSpec, MemoryRecipeSpec]>> = {
  light: [
    {
      number: 9,
      description: "List unique namespaces",
      filter: "map(.namespace)|unique",
      slurp: true,
      raw: false,
      params: [],
    },
    {
      number: 10,
      description: "Count by memory_type",
      filter: "group_by(.memory_type)|map({memory_type:.[0].memory_type,count:length})",
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
export function memoryRecipes(detail: DetailLevel): readonly MemoryRecipeSpec[] {
  return [...universal, ...adaptive[detail]];
}

/** One recipe by number (1 to 10) at `detail`, or undefined. */
export function memoryRecipe(
  detail: DetailLevel,
  recipeNumber: number,
): MemoryRecipeSpec | undefined {
  return memoryRecipes(detail).find((r) => r.number === recipeNumber);
}

/**
 * The jq program with every parameter written in as a JSON string literal, for
 * a shell user. Values come from `values`, else {@link DEFAULT_RECIPE_PARAMS}.
 */
export function inlineRecipeParams(
  spec: MemoryRecipeSpec,
  values: Partial<Record<RecipeParamName, string>> = {},
): string {
  return inlineJqParams(spec, withDefaults(spec, values));
}

/**
 * The shell command of a recipe against `filePath`:
 * `tail -n +2 <path> | jq [-r] [-s] '<filter>'`, every word safe for POSIX sh
 * (the path quoted when it has any character a shell would interpret).
 */
export function renderRecipeCommand(
  spec: MemoryRecipeSpec,
  filePath: string,
  values: Partial<Record<RecipeParamName, string>> = {},
): string {
  return renderJqCommand(spec, filePath, withDefaults(spec, values));
}

function withDefaults(
  spec: MemoryRecipeSpec,
  values: Partial<Record<RecipeParamName, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of spec.params) out[name] = values[name] ?? DEFAULT_RECIPE_PARAMS[name];
  return out;
}
