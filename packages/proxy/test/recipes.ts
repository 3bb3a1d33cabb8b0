/**
 * Run a descriptor's jq recipes through real bash + jq. Asynchronous: a test
 * worker blocked in a synchronous child process cannot answer vitest's RPC.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Run one recipe (PATTERN replaced by `pattern`) as a model would, after the
 * guidance's `F=<path>` line when it has one (generic recipes read `"$F"`);
 * returns stdout. Rejects on a non-zero exit.
 */
export async function runRecipe(command: string, pattern = "a", guidance = ""): Promise<string> {
  const first = guidance.split("\n", 1)[0] as string;
  const assign = first.startsWith("F=") ? `${first}\n` : "";
  const { stdout } = await run(
    "bash",
    ["-c", `set -o pipefail; ${assign}${command.replaceAll("PATTERN", pattern)}`],
    { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
  );
  return stdout;
}

/** Every recipe of a generic descriptor, run (after its guidance's `F=<path>`); returns their outputs by name. */
export async function runAllRecipes(
  recipes: Record<string, string>,
  pattern?: string,
  guidance?: string,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, command] of Object.entries(recipes))
    out[name] = await runRecipe(command, pattern, guidance);
  return out;
}
