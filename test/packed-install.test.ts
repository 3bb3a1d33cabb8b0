/**
 * The packages as a user gets them: `npm pack` every publishable workspace, install
 * the tarballs together into an empty directory outside the workspace, and run what
 * the package READMEs promise from there. Fails when a runtime dependency is only a
 * dev dependency, a built file is missing from `files`, or a bin lacks its shebang
 * (bins are executed directly, not through `node`).
 */
import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const INSTALL_TIMEOUT_MS = 15 * 60_000;

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;

/** Publishable workspaces (not `private`), in the root's workspace order. */
function publishable(): { dir: string; manifest: Manifest }[] {
  const { workspaces } = readJson<{ workspaces: string[] }>(join(root, "package.json"));
  return workspaces
    .map((dir) => ({ dir, manifest: readJson<Manifest>(join(root, dir, "package.json")) }))
    .filter(({ manifest }) => manifest.private !== true);
}

/** The environment of a child npm: none of the `npm test` run's own npm_* settings. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.toLowerCase().startsWith("npm_")) env[k] = v;
  }
  return { ...env, ...extra };
}

let work = "";
let app = "";
const bin = (name: string) => join(app, "node_modules", ".bin", name);

/** The first ```js block of a README: the example users copy. */
function readmeExample(readme: string): string {
  const match = /```js\n([\s\S]*?)```/.exec(readFileSync(readme, "utf8"));
  if (!match?.[1]) throw new Error(`${readme} has no \`\`\`js example`);
  return match[1];
}

/**
 * better-sqlite3 compiles from source here (no prebuilt binary is reachable), which
 * is its install, not ours. Install without scripts, then reuse the workspace's build
 * of the same version; rebuild when the versions differ.
 */
async function provideNativeSqlite(): Promise<void> {
  const installed = join(app, "node_modules", "better-sqlite3");
  const workspace = join(root, "node_modules", "better-sqlite3");
  const version = (dir: string) => readJson<Manifest>(join(dir, "package.json")).version;
  if (existsSync(join(workspace, "build")) && version(installed) === version(workspace)) {
    cpSync(join(workspace, "build"), join(installed, "build"), { recursive: true });
  } else {
    await run("npm", ["rebuild", "better-sqlite3"], { cwd: app, env: cleanEnv() });
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "atlatl-packed-"));
  const packs = join(work, "packs");
  app = join(work, "app");
  mkdirSync(packs);
  mkdirSync(app);
  const packages = publishable();
  for (const { dir } of packages) {
    expect(existsSync(join(root, dir, "dist")), `${dir}/dist: run npm run build first`).toBe(true);
  }
  const { stdout } = await run(
    "npm",
    ["pack", "--json", "--pack-destination", packs, ...packages.flatMap((p) => ["-w", p.dir])],
    { cwd: root, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 },
  );
  const tarballs = (JSON.parse(stdout) as { filename: string }[]).map((p) =>
    join(packs, p.filename),
  );
  writeFileSync(join(app, "package.json"), JSON.stringify({ private: true, type: "module" }));
  // What the @atlatl/lro README tells users to install beside it, at its own ranges.
  const lro = readJson<Manifest>(join(root, "packages/lro/package.json"));
  const peers = ["@modelcontextprotocol/sdk", "zod"].map(
    (n) => `${n}@${lro.peerDependencies?.[n] ?? lro.dependencies?.[n]}`,
  );
  await run(
    "npm",
    ["install", "--ignore-scripts", "--no-audit", "--no-fund", ...tarballs, ...peers],
    {
      cwd: app,
      env: cleanEnv(),
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  await provideNativeSqlite();
}, INSTALL_TIMEOUT_MS);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("installed from packed tarballs, outside the workspace", () => {
  it("runs `atlatl --help` through its bin (shebang, built files, runtime dependencies)", async () => {
    const { stdout } = await run(bin("atlatl"), ["--help"], { cwd: app, env: cleanEnv() });
    expect(stdout).toMatch(/Usage: atlatl/);
    expect(stdout).toMatch(/serve/);
  });

  it("runs every package's bins directly with --help", async () => {
    const bins = publishable().flatMap(({ manifest }) => Object.keys(manifest.bin ?? {}));
    expect(bins).toEqual(expect.arrayContaining(["atlatl", "atlatl-proxy", "atlatl-eval"]));
    for (const name of bins) {
      const { stdout } = await run(bin(name), ["--help"], { cwd: app, env: cleanEnv() });
      expect(stdout, name).toMatch(new RegExp(`Usage: ${name}`));
    }
  });

  it("seeds 50 memories and lists the active ones", async () => {
    const db = join(app, "seed.db");
    const env = cleanEnv({ ATLATL_CONFIG: "" });
    const seeded = await run(bin("atlatl"), ["seed", "--count", "50", "--db", db], {
      cwd: app,
      env,
    });
    expect(seeded.stdout + seeded.stderr).toMatch(/seeded 50 memories/);
    const { stdout } = await run(bin("atlatl"), ["list", "--json", "--limit", "100", "--db", db], {
      cwd: app,
      env,
    });
    const rows = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: string });
    // The seeded corpus includes some superseded/archived memories; list shows the active ones.
    expect(rows.length).toBeGreaterThan(25);
    expect(rows.length).toBeLessThanOrEqual(50);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
  });

  it("answers MCP initialize and tools/list from `atlatl serve`", async () => {
    const transport = new StdioClientTransport({
      command: bin("atlatl"),
      args: ["serve", "--db", join(app, "serve.db")],
      env: cleanEnv({ ATLATL_CONFIG: "", ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: join(work, "out") }),
      cwd: app,
      stderr: "pipe",
    });
    const client = new Client({ name: "packed-install", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe("atlatl");
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(["capture_memory", "recall_memories", "lro_extract"]),
      );
    } finally {
      await client.close();
    }
  });

  it("runs the @atlatl/lro README example: a large result is offloaded and extracted", async () => {
    const example = join(app, "example.mjs");
    writeFileSync(example, readmeExample(join(root, "packages/lro/README.md")));
    const outputDir = join(work, "example-out");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [example],
      env: cleanEnv({ ATLATL_CONFIG: "", ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: outputDir }),
      cwd: app,
      stderr: "pipe",
    });
    const client = new Client({ name: "packed-install", version: "1.0.0" });
    await client.connect(transport);
    try {
      const result = (await client.callTool({
        name: "find_orders",
        arguments: { customer: "acme" },
      })) as CallToolResult;
      const first = result.content[0];
      const descriptor = JSON.parse(first?.type === "text" ? first.text : "{}");
      expect(descriptor.offloaded).toBe(true);
      expect(descriptor.summary.count).toBe(400);
      // The records profile describes orders by their own fields, not memory fields.
      expect(Object.keys(descriptor.line_schema)).toEqual(["id", "customer", "total"]);
      expect(JSON.stringify(descriptor.jq_recipes)).not.toMatch(/\.namespace|\.memory_type/);
      const lines = readFileSync(descriptor.file_path, "utf8").trimEnd().split("\n");
      expect(lines).toHaveLength(401);
      const picked = (await client.callTool({
        name: "lro_extract",
        arguments: { file_path: descriptor.file_path, query: "select(.total == 0) | .id" },
      })) as CallToolResult;
      const out = picked.content[0];
      expect(picked.isError).toBeFalsy();
      expect(out?.type === "text" ? out.text.trim().split("\n") : []).toEqual(
        Array.from({ length: 400 }, (_, i) => i)
          .filter((i) => (i * 37) % 500 === 0)
          .map((i) => JSON.stringify(`ord-${i}`)),
      );
    } finally {
      await client.close();
    }
  });
});
