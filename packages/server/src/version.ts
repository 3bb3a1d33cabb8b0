import { readFileSync } from "node:fs";

/**
 * The package version, read from package.json at run time (one source of truth:
 * `npm version` changes the CLI's `--version` and the MCP server info alike).
 * `src/` and `dist/` both sit one level below package.json.
 */
export const ATLATL_VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;
