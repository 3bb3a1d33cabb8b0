/**
 * Child process of the `server-import-rejections` benchmark: in a fresh process,
 * either JSON.parse a file (the floor: what any import of a .json file costs) or
 * import it with `importPath` into an in-memory store. Prints one JSON line:
 * wall time, peak RSS, documents rejected.
 * Usage: server-import-rejections-child.ts parse|import FILE
 */
import { readFileSync } from "node:fs";
import { importPath } from "atlatl";
import { openSqliteStore } from "../../server/src/store/sqlite/open-sqlite.js";

const [mode, file] = process.argv.slice(2);
if (!file || (mode !== "parse" && mode !== "import")) {
  throw new Error("usage: server-import-rejections-child.ts parse|import FILE");
}
const started = performance.now();
let rejected = 0;
if (mode === "parse") {
  const value = JSON.parse(readFileSync(file, "utf8")) as unknown[];
  rejected = value.length;
} else {
  const store = await openSqliteStore({ path: ":memory:" });
  rejected = (await importPath(store, file)).rejectedCount;
  await store.close();
}
const ms = performance.now() - started;
const peak = process.resourceUsage().maxRSS * 1024;
process.stdout.write(`${JSON.stringify({ ms, peak, rejected })}\n`);
