/**
 * The checked fast path of fixed recipes: jq's exact output computed in
 * TypeScript on records parsed once and cached, for the filters a profile
 * implements (`Profile.fastPaths`, keyed by the exact filter text, so an edited
 * recipe silently loses its fast path instead of diverging from jq). Anywhere
 * an implementation cannot vouch for its result, the caller runs the real jq.
 */
import { BUILTIN_PROFILES } from "../profiles/registry.js";
import type { RecipeSpec } from "../recipes/recipe-spec.js";
import type { FastOutput, FastPath, FastRecords, RegexOracle } from "./fast-primitives.js";

export type {
  FastImpl,
  FastOutput,
  FastPath,
  FastRecords,
  RegexOracle,
} from "./fast-primitives.js";

type Params = Readonly<Record<string, string>>;

/** Every built-in profile's fast paths, by filter text. */
const FAST_PATHS: ReadonlyMap<string, FastPath> = new Map(
  BUILTIN_PROFILES.flatMap((p) => [...(p.fastPaths ?? [])]),
);

/** True when `recipe` has a fast path (its filter text is one this module implements). */
function hasFastPath(recipe: RecipeSpec): boolean {
  return FAST_PATHS.get(recipe.filter)?.slurp === recipe.slurp;
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
  return FAST_PATHS.get(recipe.filter)?.run(data, params, oracle);
}
