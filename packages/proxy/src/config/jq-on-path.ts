/**
 * Whether the `jq` CLI is on PATH: the descriptor's recipes are jq commands, so
 * a client's shell can run them only where it is (see `listsExtractTool`).
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** True when an executable `jq` (`jq.exe` etc. on Windows) is in a directory of `env.PATH`. */
export function jqOnPath(env: Record<string, string | undefined> = process.env): boolean {
  const dirs = (env.PATH ?? env.Path ?? "").split(delimiter).filter((d) => d !== "");
  const names =
    process.platform === "win32"
      ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";").map((ext) => `jq${ext.toLowerCase()}`)
      : ["jq"];
  return dirs.some((dir) =>
    names.some((name) => {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    }),
  );
}
