/**
 * Scale-out (issue 22): two real `atlatl serve --http` processes on one
 * PostgreSQL database with `offload_store.backend = "postgres"`, each with its
 * own offload directory (its own disk), requests alternating between them.
 * A file offloaded on one instance is extracted and read as a resource on the
 * other, even after the first was killed with SIGKILL; another token gets
 * "not found" on both. SDK 1.x clients. Declared when `ATLATL_TEST_PG_URL` is
 * set or CI requires it (then they fail without it).
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, PG_ENABLED, type StoreTarget } from "../backends/backends.js";
import { firstIds } from "../http/offload-file.js";
import { type ModernResponse, modern } from "../http/raw-request.js";
import { type HttpServer, startHttpServer } from "../http/spawn-http.js";

const A = "scale-out-token-a";
const B = "scale-out-token-b";
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

async function recallOffloaded(c: Client): Promise<{ path: string; uri: string }> {
  const result = (await c.callTool({
    name: "recall_memories",
    arguments: { query: "", limit: 300, detail: "full" },
  })) as CallToolResult;
  const descriptor = JSON.parse(text(result));
  expect(descriptor.offloaded).toBe(true);
  const link = result.content.find((x) => x.type === "resource_link") as { uri: string };
  return { path: descriptor.file_path, uri: link.uri };
}

const extractIds = async (c: Client, file_path: string) =>
  (await c.callTool({
    name: "lro_extract",
    arguments: { file_path, query: ".id", limit: 3 },
  })) as CallToolResult;

/** Names of the files anywhere under `dir` (an instance's offload directories). */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: "utf8" }).map((p) => basename(p));

describe.runIf(PG_ENABLED)("two instances, one PostgreSQL, a shared offload store", () => {
  let target: StoreTarget;
  const servers: HttpServer[] = [];
  const start = async (seed?: number) => {
    const s = await startHttpServer({
      tokens: `${A},${B}`,
      store: target,
      env: { ATLATL_OFFLOAD_STORE__BACKEND: "postgres" },
      ...(seed ? { seed } : {}),
    });
    servers.push(s);
    return s;
  };
  beforeAll(async () => {
    const postgres = BACKENDS.find((b) => b.name === "postgres");
    if (!postgres) throw new Error("the postgres backend is not declared");
    target = await postgres.serverConfig("");
  }, 60_000);
  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null) await s.stop();
    await target?.cleanup();
  });

  it("offloads on B and serves the file on A: lro_extract, resources/read; another token refused on both", async () => {
    const a = await start(400);
    const b = await start();
    for (const s of [a, b]) {
      const health = await (await fetch(`${s.url}/healthz`)).json();
      expect(health).toEqual({ status: "ok", offload_store: "postgres" });
    }
    const onA = await a.connect({ token: A });
    const onB = await b.connect({ token: A });
    // Capture on A, recall (offloaded) on B.
    const captured = (await onA.callTool({
      name: "capture_memory",
      arguments: { content: "written on instance A, recalled on B", title: "scale-out" },
    })) as CallToolResult;
    expect(captured.isError).toBeFalsy();
    const file = await recallOffloaded(onB);
    expect(file.path.startsWith(b.outputDir)).toBe(true);
    const expected = firstIds(file.path, 3);

    // Extraction and resources/read on A, whose disk never had the file.
    const extracted = await extractIds(onA, file.path);
    expect(extracted.isError).toBeFalsy();
    expect(text(extracted)).toBe(expected);
    const read = await onA.readResource({ uri: `${file.uri}?offset=0&limit=3` });
    const lines = (read.contents[0] as { text: string }).text;
    expect(lines).toBe(`${readFileSync(file.path, "utf8").split("\n").slice(0, 3).join("\n")}\n`);

    // Another token's principal: the file does not exist for it, on either instance.
    for (const s of [a, b]) {
      const other = await s.connect({ token: B });
      const refused = await extractIds(other, file.path);
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^FILE_NOT_FOUND/);
      await expect(other.readResource({ uri: file.uri })).rejects.toThrow(/FILE_NOT_FOUND/);
    }
  }, 120_000);

  it("kill -9 of the instance that captured and offloaded: the memory and the extraction are served by the other", async () => {
    const [a, b] = servers as [HttpServer, HttpServer];
    const onA = await a.connect({ token: A });
    const captured = (await onA.callTool({
      name: "capture_memory",
      arguments: { content: "acknowledged just before a kill -9", title: "survives" },
    })) as CallToolResult;
    expect(captured.isError).toBeFalsy();
    const id = (JSON.parse(text(captured)) as { id: string }).id;
    const file = await recallOffloaded(onA);
    const expected = firstIds(file.path, 3);
    const exited = new Promise((r) => a.child.once("exit", r));
    a.child.kill("SIGKILL");
    await exited;
    const onB = await b.connect({ token: A });
    const got = (await onB.callTool({ name: "get_memory", arguments: { id } })) as CallToolResult;
    expect(got.isError, text(got)).toBeFalsy();
    expect(text(got)).toContain("acknowledged just before a kill -9");
    const extracted = await extractIds(onB, file.path);
    expect(extracted.isError).toBeFalsy();
    expect(text(extracted)).toBe(expected);
  }, 120_000);

  it("2026-07-28 requests, each on its own, alternating between the instances: offload on A, extract and read on B", async () => {
    const [, b] = servers as [HttpServer, HttpServer];
    const a = await start();
    const call = async (s: HttpServer, method: string, params: Record<string, unknown>) => {
      const r: ModernResponse = await modern(s.url, method, params, { token: A });
      expect(r.status, r.body).toBe(200);
      expect(r.message.error, r.body).toBeUndefined();
      return r.message.result as Record<string, unknown> & {
        content?: { type: string; text?: string; uri?: string }[];
      };
    };
    const recalled = await call(a, "tools/call", {
      name: "recall_memories",
      arguments: { query: "", limit: 300, detail: "full" },
    });
    const descriptor = JSON.parse(recalled.content?.[0]?.text as string);
    expect(descriptor.offloaded).toBe(true);
    const uri = recalled.content?.find((c) => c.type === "resource_link")?.uri as string;
    const extracted = await call(b, "tools/call", {
      name: "lro_extract",
      arguments: { file_path: descriptor.file_path, query: ".id", limit: 3 },
    });
    expect(extracted.isError).toBeFalsy();
    expect(extracted.content?.[0]?.text).toBe(firstIds(descriptor.file_path, 3));
    const read = await call(b, "resources/read", { uri });
    expect((read.contents as { text: string }[])[0]?.text).toBe(
      readFileSync(descriptor.file_path, "utf8"),
    );
  }, 120_000);

  it("resources/list on the instance that did not offload shows the file (2026-07-28 request, 2025 session); another token's list does not", async () => {
    const [, b, a] = servers as [HttpServer, HttpServer, HttpServer];
    const onA = await a.connect({ token: A });
    const file = await recallOffloaded(onA);
    const name = basename(file.path);
    // B's disk never had it: only the shared store can tell B of it.
    expect(filesUnder(b.outputDir)).not.toContain(name);
    const modernList = async (token: string) => {
      const r: ModernResponse = await modern(b.url, "resources/list", {}, { token });
      expect(r.status, r.body).toBe(200);
      expect(r.message.error, r.body).toBeUndefined();
      return (r.message.result as { resources: { uri: string; name: string }[] }).resources;
    };
    const listed = (await modernList(A)).filter((r) => r.name === name);
    expect(listed).toEqual([expect.objectContaining({ uri: file.uri, name })]);
    const session = await b.connect({ token: A });
    const inSession = (await session.listResources()).resources.filter((r) => r.name === name);
    expect(inSession).toEqual([expect.objectContaining({ uri: file.uri, name })]);
    // Listing does not copy the file to B, and lists it once even after a read did.
    expect(filesUnder(b.outputDir)).not.toContain(name);
    await session.readResource({ uri: file.uri });
    expect((await modernList(A)).filter((r) => r.name === name)).toHaveLength(1);
    // Another token's principal: not listed, on either instance.
    expect((await modernList(B)).map((r) => r.name)).not.toContain(name);
    const other = await a.connect({ token: B });
    expect((await other.listResources()).resources.map((r) => r.name)).not.toContain(name);
  }, 120_000);

  it("/healthz names the offload store when it stops answering, and recovers with it", async () => {
    const s = servers.at(-1) as HttpServer;
    const admin = new pg.Client({ connectionString: target.config.url as string });
    await admin.connect();
    try {
      await admin.query("ALTER TABLE offload_files RENAME TO offload_files_away");
      const down = await fetch(`${s.url}/healthz`);
      expect(down.status).toBe(503);
      expect(((await down.json()) as { detail: string }).detail).toMatch(/^offload store: /);
      await admin.query("ALTER TABLE offload_files_away RENAME TO offload_files");
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    } finally {
      await admin.end();
    }
  });
});
