/** Run a descriptor's jq recipes through real bash + jq. */
import { execFileSync } from "node:child_process";

/** Run one recipe (PATTERN replaced by `pattern`); returns stdout. Throws on a non-zero exit. */
export function runRecipe(command: string, pattern = "a"): string {
  return execFileSync(
    "bash",
    ["-c", `set -o pipefail; ${command.replaceAll("PATTERN", pattern)}`],
    {
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    },
  );
}

/** Every recipe of a generic descriptor, run; returns their outputs by name. */
export function runAllRecipes(
  recipes: Record<string, string>,
  pattern?: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, command] of Object.entries(recipes)) out[name] = runRecipe(command, pattern);
  return out;
}
