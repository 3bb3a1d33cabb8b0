/**
 * Every shell block of the README runs as written, from a directory outside the
 * clone, with the commands installed the README's way (`npm run install-bins`,
 * here into a throw-away prefix) and a throw-away HOME. A block may be left out
 * only by a marker on the line before it, which this test reads:
 *
 *     <!-- readme-test: skip (reason) -->   needs a real MCP client, the network, or is development in the clone
 *     <!-- readme-test: setup (reason) -->  the set-up itself; this test runs it in the clone (into its prefix)
 *
 * (docs/*.md and the packages' READMEs: docs.test.ts, with `doc-test` markers.)
 *
 * Also: the README's offloaded-result example is what the server answers in the
 * scenario it names (the example had drifted from the output).
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, type DocBlock, docBlocks, homeEnv } from "./doc-blocks.js";

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const readme = readFileSync(join(root, "README.md"), "utf8");

/** The README's ```sh blocks, with the marker on the line before each, if any. */
function shellBlocks(text: string): DocBlock[] {
  return docBlocks(text, "readme-test").filter((b) => b.lang === "sh");
}

let prefix = "";
let home = "";
let env: Record<string, string> = {};

beforeAll(async () => {
  prefix = mkdtempSync(join(tmpdir(), "atlatl-readme-prefix-"));
  home = mkdtempSync(join(tmpdir(), "atlatl-readme-home-"));
  await run("npm", ["run", "install-bins", "--", "--prefix", prefix], {
    cwd: root,
    env: cleanEnv({}),
  });
  env = cleanEnv({
    ...homeEnv(home),
    PATH: `${join(prefix, "bin")}:${process.env.PATH ?? ""}`,
  });
}, 120_000);

afterAll(() => {
  rmSync(prefix, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

describe("README", () => {
  const blocks = shellBlocks(readme);

  it("marks only with the markers this test knows, and sets up with install-bins", () => {
    for (const b of blocks) {
      if (b.marker) expect(["skip", "setup"], `line ${b.line}`).toContain(b.marker.kind);
    }
    const setup = blocks.filter((b) => b.marker?.kind === "setup");
    expect(setup.map((b) => b.code)).toEqual(["npm install\nnpm run install-bins"]);
    expect(blocks.filter((b) => !b.marker).length).toBeGreaterThanOrEqual(4);
  });

  for (const block of blocks.filter((b) => !b.marker)) {
    it(`runs the block at line ${block.line} from outside the clone`, async () => {
      const cwd = mkdtempSync(join(tmpdir(), "atlatl-readme-cwd-"));
      try {
        const child = spawn("bash", ["-e", "-o", "pipefail", "-c", block.code], {
          cwd,
          env,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let output = "";
        child.stdout.on("data", (c: Buffer) => {
          output += c.toString();
        });
        child.stderr.on("data", (c: Buffer) => {
          output += c.toString();
        });
        const code = await new Promise<number | null>((done) => child.once("exit", done));
        expect(code, `${block.code}\n--- output ---\n${output}`).toBe(0);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    }, 120_000);
  }

  it("shows the offloaded result the server gives in the scenario it names", async () => {
    const json = /````json\n([\s\S]*?)\n}```/.exec(readme)?.[1];
    expect(json).toBeDefined();
    const example = JSON.parse(`${json}\n}`) as { summary: Record<string, unknown> };
    const db = join(home, "example.db");
    await run(join(prefix, "bin", "atlatl"), ["seed", "--count", "500", "--db", db], { env });
    const client = new Client({ name: "readme-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: join(prefix, "bin", "atlatl"),
        args: ["serve", "--db", db, "--output-dir", join(home, "out")],
        env,
        stderr: "pipe",
      }),
    );
    try {
      const result = (await client.callTool({
        name: "recall_memories",
        arguments: { query: "incident" },
      })) as CallToolResult;
      const first = result.content[0];
      const real = JSON.parse(first?.type === "text" ? first.text : "{}") as {
        summary: Record<string, unknown>;
      };
      const { score_range: exampleScores, ...exampleRest } = example.summary;
      const { score_range: realScores, ...realRest } = real.summary;
      expect(Object.keys(example.summary)).toEqual(Object.keys(real.summary));
      expect(exampleRest).toEqual(realRest);
      // Recency is part of a score: the real range drifts slowly with the clock.
      const [lo, hi] = realScores as [number, number];
      const [exLo, exHi] = exampleScores as [number, number];
      expect(Math.abs(exLo - lo)).toBeLessThan(0.05);
      expect(Math.abs(exHi - hi)).toBeLessThan(0.05);
    } finally {
      await client.close();
    }
  });
});
