/**
 * The proxy in front of a real `atlatl serve` over stdio. The proxy declares
 * `LRO_PROXY_CAPABILITY`; atlatl answers its read tools with the whole set,
 * which the proxy writes locally with the memory profile (the specification's
 * descriptor and its ten recipes), as the "Local LRO Proxy" section says.
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
// The server's own offloading is off here: it still returns whole sets to the proxy.
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

  it("writes an atlatl result set locally, whole, with the memory profile and its ten recipes", async () => {
    // Every match through the proxy (LRO precedes pagination); the direct client pages them.
    const all: object[] = [];
    let cursor: string | undefined;
    do {
      const page = JSON.parse(
        textOf(
          (await d.client.callTool({
            name: "list_memories",
            arguments: { limit: 200, detail: "light", ...(cursor ? { cursor } : {}) },
          })) as CallToolResult,
        ),
      ) as { records: object[]; next_cursor?: string | null };
      all.push(...page.records);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    const b = (await p.client.callTool({
      name: "list_memories",
      arguments: { limit: 200, detail: "light" },
    })) as CallToolResult;
    const descriptor = JSON.parse(textOf(b));
    expect(descriptor.offloaded).toBe(true);
    expect(descriptor.summary).toMatchObject({
      count: all.length,
      operation: "list",
      detail: "light",
    });
    expect(all.length).toBeGreaterThan(200);
    expect(descriptor.jq_recipes).toHaveLength(10);
    expect(descriptor.file_path.startsWith(out)).toBe(true);
    const lines = readFileSync(descriptor.file_path, "utf8").trimEnd().split("\n");
    expect(JSON.parse(lines[0] as string)).toMatchObject({ type: "lro_header", operation: "list" });
    // The proxy does not alter the memory data: the file holds exactly the server's records.
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(all);
    const titles = (await runRecipe(descriptor.jq_recipes[0].command)).trim().split("\n");
    expect(titles).toHaveLength(all.length);
    const ns = (all[0] as { namespace: string }).namespace;
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
    const page = JSON.parse(
      textOf(
        (await d.client.callTool({
          name: "list_memories",
          arguments: { limit: 1 },
        })) as CallToolResult,
      ),
    ) as { records: { id: string }[] };
    const call = { name: "get_memory", arguments: { id: page.records[0]?.id } };
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
