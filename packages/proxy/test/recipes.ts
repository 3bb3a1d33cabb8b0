/**
 * Run a descriptor's jq recipes through real bash + jq. Asynchronous: a test
 * worker blocked in a synchronous child process cannot answer vitest's RPC.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Run one recipe (PATTERN replaced by `pattern`); returns stdout. Rejects on a non-zero exit. */
export async function runRecipe(command: string, pattern = "a"): Promise<string> {
  const { stdout } = await run(
    "bash",
    ["-c", `set -o pipefail; ${command.replaceAll("PATTERN", pattern)}`],
    { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
  );
  return stdout;
}

/** Every recipe of a generic descriptor, run; returns their outputs by name. */
export async function runAllRecipes(
  recipes: Record<string, string>,
  pattern?: string,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, command] of Object.entries(recipes))
    out[name] = await runRecipe(command, pattern);
  return out;
}
