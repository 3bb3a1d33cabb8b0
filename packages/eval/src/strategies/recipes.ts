/**
 * The paper's Appendix B extraction query library: the five recipes its E3
 * "Recipe" condition gave the agent (enumeration, filtering, search,
 * aggregation, ranking), verbatim but for `{file}`. The specification's current
 * ten-recipe library (what the engine returns) is E3's labelled variant.
 */

export type RecipeLibrary = "spec" | "appendix-b";

/** Category, query (with `{file}`), purpose: as printed in Appendix B. */
export const APPENDIX_B_RECIPES: readonly (readonly [string, string, string])[] = [
  [
    "Enumeration",
    "tail -n +2 {file} | jq -r '[.title,.provenance.confidence] | @tsv'",
    "Tabular listing of titles with scores",
  ],
  [
    "Filtering",
    `tail -n +2 {file} | jq 'select(.namespace | startswith("_semantic"))'`,
    "Namespace-based subset selection",
  ],
  [
    "Search",
    `tail -n +2 {file} | jq 'select(.title | test("keyword"; "i"))'`,
    "Case-insensitive keyword matching",
  ],
  [
    "Aggregation",
    "tail -n +2 {file} | jq -s 'group_by(.namespace) | map({namespace:.[0].namespace, count: length})'",
    "Distribution analysis",
  ],
  [
    "Ranking",
    "tail -n +2 {file} | jq -s 'sort_by(-.provenance.confidence) |.[:10]'",
    "Top-k extraction by score",
  ],
];

/** Appendix B's recipes for one file, in the descriptor's `jq_recipes` shape. */
export function appendixBRecipes(filePath: string): { description: string; command: string }[] {
  return APPENDIX_B_RECIPES.map(([category, query, purpose]) => ({
    description: `${category}: ${purpose}`,
    command: query.replaceAll("{file}", filePath),
  }));
}
