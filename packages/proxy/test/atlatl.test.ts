/**
 * The proxy in front of a real `atlatl serve` over stdio. An atlatl upstream's
 * inline `{count, records}` results are written locally with the memory profile
 * (the specification's descriptor and its ten recipes), as the specification's
 * "Local LRO Proxy" section says.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { direct, type Peer, proxied, tempDir } from "./helpers.js";
import { runRecipe } from "./recipes.js";

const here = dirname(fileURLToPath(import.meta.url));
const serverRoot = resolve(here, "../../server");
const ATLATL = ["--conditions=source", "--import", "tsx", join(serverRoot, "src/cli/main.ts")];

const work = tempDir("atlatl-proxy-atlatl-");
const db = join(work.dir, "atlatl.db");
const out = join(work.dir, "proxy-out");
// The server's own offloading is off here, so it answers inline as it would to a proxy.
const serve = [...ATLATL, "serve", "--db", db, "--no-offload"];
let d: Peer;
let p: Peer;

beforeAll(async () => {
  execFileSync(process.execPath, [...ATLATL, "seed", "--db", db, "-n", "300"], {
    cwd: serverRoot,
    env: { ...process.env, ATLATL_CONFIG: "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const env = { ATLATL_CONFIG: "" };
  [d, p] = await Promise.all([
    direct(serve),
    proxied(serve, ["--output-dir", out], undefined, env),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([d?.close(), p?.close()]);
  work.remove();
});

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

describe("atlatl-proxy in front of atlatl serve", () => {
  it("mirrors atlatl's serverInfo and tools", async () => {
    expect(p.client.getServerVersion()).toEqual(d.client.getServerVersion());
    const [dt, pt] = await Promise.all([d.client.listTools(), p.client.listTools()]);
    const names = pt.tools.map((t) => t.name);
    // atlatl has its own lro_extract: the proxy's is prefixed, the upstream's kept.
    expect(names.slice(0, dt.tools.length)).toEqual(dt.tools.map((t) => t.name));
    expect(names.at(-1)).toBe(
      dt.tools.some((t) => t.name === "lro_extract") ? "atlatl_proxy_lro_extract" : "lro_extract",
    );
  });

  it("writes an atlatl inline result locally with the memory profile and its ten recipes", async () => {
    const call = { name: "list_memories", arguments: { limit: 200, detail: "light" } };
    const [a, b] = await Promise.all([
      d.client.callTool(call) as Promise<CallToolResult>,
      p.client.callTool(call) as Promise<CallToolResult>,
    ]);
    const inline = JSON.parse(textOf(a)) as { count: number; records: object[] };
    expect(inline.count).toBe(200);
    const descriptor = JSON.parse(textOf(b));
    expect(descriptor.offloaded).toBe(true);
    expect(descriptor.summary).toMatchObject({ count: 200, operation: "list", detail: "light" });
    expect(descriptor.jq_recipes).toHaveLength(10);
    expect(descriptor.file_path.startsWith(out)).toBe(true);
    const lines = readFileSync(descriptor.file_path, "utf8").trimEnd().split("\n");
    expect(JSON.parse(lines[0] as string)).toMatchObject({ type: "lro_header", operation: "list" });
    // The proxy does not alter the memory data: the file holds exactly the inline records.
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(inline.records);
    const titles = (await runRecipe(descriptor.jq_recipes[0].command)).trim().split("\n");
    expect(titles).toHaveLength(200);
    const ns = (inline.records[0] as { namespace: string }).namespace;
    const filtered = await runRecipe(descriptor.jq_recipes[1].command.replace("{namespace}", ns));
    expect(filtered.length).toBeGreaterThan(0);
    // The proxy's extraction tool (prefixed when atlatl lists its own) reads the local file.
    const tools = (await p.client.listTools()).tools.map((t) => t.name);
    const extract = tools.at(-1) as string;
    expect(extract.endsWith("lro_extract")).toBe(true);
    const x = (await p.client.callTool({
      name: extract,
      arguments: { file_path: descriptor.file_path, recipe: 1, limit: 5 },
    })) as CallToolResult;
    expect(x.isError).toBeFalsy();
    expect(textOf(x).trim().split("\n")).toEqual(titles.slice(0, 5));
  });

  it("passes small atlatl results through unchanged", async () => {
    const call = { name: "list_memories", arguments: { limit: 2 } };
    const [a, b] = await Promise.all([d.client.callTool(call), p.client.callTool(call)]);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it("atlatl serve with offloading on answers the proxy (clientInfo.proxy: true) inline; the proxy writes the memory-profile file locally", async () => {
    const serverOut = join(work.dir, "server-out");
    const localOut = join(work.dir, "proxy-local");
    // Offloading on at the server (its own directory), so only proxy-awareness keeps it inline.
    const lro = await proxied(
      [...ATLATL, "serve", "--db", db],
      ["--output-dir", localOut],
      undefined,
      {
        ATLATL_CONFIG: "",
        ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: serverOut,
      },
    );
    try {
      const result = (await lro.client.callTool({
        name: "recall_memories",
        arguments: { query: "", limit: 20, detail: "light", status: "any" },
      })) as CallToolResult;
      const descriptor = JSON.parse(textOf(result));
      expect(descriptor.offloaded).toBe(true);
      // The whole set (all 300 seeded memories), written on the proxy's side.
      expect(descriptor.summary).toMatchObject({
        count: 300,
        operation: "recall",
        detail: "light",
      });
      expect(descriptor.file_path.startsWith(localOut)).toBe(true);
      expect(descriptor.jq_recipes).toHaveLength(10);
      const lines = readFileSync(descriptor.file_path, "utf8").trimEnd().split("\n");
      expect(lines).toHaveLength(301);
      // The server wrote nothing: it answered the proxy inline.
      expect(existsSync(serverOut) ? readdirSync(serverOut) : []).toEqual([]);
    } finally {
      await lro.close();
    }
  });
});
