/**
 * Scale-out for 2025-11-25 clients (issue 22): two real `atlatl serve --http`
 * processes on one PostgreSQL database with the shared offload store, behind a
 * round-robin "balancer" (the client transport's `fetch` sends every request
 * to the other instance than the one before). With `[server.http]
 * legacy_sessions = false` the SDK 1.x client and the SDK 2.x client in
 * `legacy` mode initialize, list tools, offload a broad recall and read it
 * back with `lro_extract` and `resources/read`, requests alternating; another
 * token is refused. With the default (sessions) the same alternation is
 * answered 404 "Session not found": the session lives on one instance only.
 * Declared when `ATLATL_TEST_PG_URL` is set or CI requires it.
 */
import { readFileSync } from "node:fs";
import {
  Client as Client2,
  StreamableHTTPClientTransport as Transport2,
} from "@modelcontextprotocol/client";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Transport1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, PG_ENABLED, type StoreTarget } from "../backends/backends.js";
import { firstIds } from "../http/offload-file.js";
import { INITIALIZE, MCP_HEADERS, raw } from "../http/raw-request.js";
import { type HttpServer, startHttpServer } from "../http/spawn-http.js";

const A = "round-robin-token-a";
const B = "round-robin-token-b";
/** The address clients are given: only the balancer's `fetch` knows the instances. */
const BALANCER = new URL("http://balancer.invalid/mcp");

/** One request as the balancer routed it: the instance, HTTP method and JSON-RPC method. */
interface Hit {
  instance: string;
  http: string;
  rpc: string | undefined;
  tool: string | undefined;
}

/** A round-robin balancer without affinity: request n goes to `instances[n % 2]`. */
function roundRobin(instances: HttpServer[]) {
  const hits: Hit[] = [];
  let next = 0;
  const balance = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (input instanceof Request) throw new Error("the balancer takes a URL and init");
    const to = instances[next++ % instances.length] as HttpServer;
    const url = new URL(String(input));
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
    hits.push({
      instance: to.url,
      http: init?.method ?? "GET",
      rpc: body?.method,
      tool: body?.params?.name,
    });
    return fetch(new URL(url.pathname + url.search, to.url), init);
  };
  return { fetch: balance, hits };
}

/** What both SDK clients' tool results look like here. */
interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string; uri?: string }[];
}
/** The calls the scenario makes, the same on either SDK. */
interface Caller {
  tools(): Promise<string[]>;
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  read(uri: string): Promise<{ contents: { text?: string }[] }>;
}
const caller1 = (c: Client1): Caller => ({
  tools: async () => (await c.listTools()).tools.map((t) => t.name),
  call: async (name, args) => (await c.callTool({ name, arguments: args })) as ToolResult,
  read: async (uri) => (await c.readResource({ uri })) as { contents: { text?: string }[] },
});
/** SDK 2.x: every read is sent (its response cache would answer a repeated read itself). */
const caller2 = (c: Client2): Caller => ({
  tools: async () => (await c.listTools()).tools.map((t) => t.name),
  call: async (name, args) => (await c.callTool({ name, arguments: args })) as ToolResult,
  read: async (uri) =>
    (await c.readResource({ uri }, { cacheMode: "refresh" })) as { contents: { text?: string }[] },
});

const text = (r: ToolResult) => r.content[0]?.text as string;
type Sdk = "SDK 1.x" | "SDK 2.x legacy";

describe.runIf(PG_ENABLED)("2025-11-25 clients behind a round-robin balancer", () => {
  let target: StoreTarget;
  let stateless: HttpServer[] = [];
  let sessionful: HttpServer[] = [];
  const opened: { close(): Promise<void> }[] = [];
  const start = (env: Record<string, string>, seed?: number) =>
    startHttpServer({
      tokens: `${A},${B}`,
      store: target,
      env: { ATLATL_OFFLOAD_STORE__BACKEND: "postgres", ...env },
      ...(seed ? { seed } : {}),
    });

  beforeAll(async () => {
    const postgres = BACKENDS.find((b) => b.name === "postgres");
    if (!postgres) throw new Error("the postgres backend is not declared");
    target = await postgres.serverConfig("");
    const off = { ATLATL_SERVER__HTTP__LEGACY_SESSIONS: "false" };
    stateless = [await start(off, 400), await start(off)];
    sessionful = [await start({}), await start({})];
  }, 120_000);
  afterAll(async () => {
    for (const c of opened) await c.close().catch(() => {});
    for (const s of [...stateless, ...sessionful]) await s.stop();
    await target?.cleanup();
  });

  /** A connected client of `sdk` for `token`, every request of it balanced over `instances`. */
  async function connect(sdk: Sdk, instances: HttpServer[], token: string) {
    const balancer = roundRobin(instances);
    const options = {
      fetch: balancer.fetch,
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    };
    const info = { name: "round-robin-test", version: "1.0.0" };
    if (sdk === "SDK 1.x") {
      const client = new Client1(info);
      opened.push(client);
      await client.connect(new Transport1(BALANCER, options));
      return { client: caller1(client), hits: balancer.hits };
    }
    const client = new Client2(info, { versionNegotiation: { mode: "legacy" } });
    opened.push(client);
    await client.connect(new Transport2(BALANCER, options));
    expect(client.getProtocolEra()).toBe("legacy");
    return { client: caller2(client), hits: balancer.hits };
  }

  it("legacy_sessions = false: initialize answers without a session, GET and DELETE 405", async () => {
    const [s] = stateless as [HttpServer];
    const auth = { ...MCP_HEADERS, authorization: `Bearer ${A}` };
    const init = await raw(s.url, "/mcp", { method: "POST", headers: auth, body: INITIALIZE });
    expect(init.status, init.body).toBe(200);
    expect(init.headers["mcp-session-id"]).toBeUndefined();
    for (const method of ["GET", "DELETE"]) {
      const r = await raw(s.url, "/mcp", { method, headers: auth });
      expect(r.status, r.body).toBe(405);
    }
    // Auth is the same: no token, no answer.
    const anonymous = await raw(s.url, "/mcp", {
      method: "POST",
      headers: MCP_HEADERS,
      body: INITIALIZE,
    });
    expect(anonymous.status).toBe(401);
  });

  for (const sdk of ["SDK 1.x", "SDK 2.x legacy"] as const) {
    it(`${sdk}, legacy_sessions = false: every request on the other instance; offload, lro_extract, resources/read succeed`, async () => {
      const { client, hits } = await connect(sdk, stateless, A);
      expect(await client.tools()).toContain("lro_extract");
      const recalled = await client.call("recall_memories", {
        query: "",
        limit: 300,
        detail: "full",
      });
      const descriptor = JSON.parse(text(recalled));
      expect(descriptor.offloaded, text(recalled)).toBe(true);
      const uri = recalled.content.find((c) => c.type === "resource_link")?.uri as string;
      const extracted = await client.call("lro_extract", {
        file_path: descriptor.file_path,
        query: ".id",
        limit: 3,
      });
      expect(extracted.isError, text(extracted)).toBeFalsy();
      expect(text(extracted)).toBe(firstIds(descriptor.file_path, 3));
      // Read twice: one of the two lands on the instance that did not write it.
      for (let i = 0; i < 2; i++) {
        const read = await client.read(uri);
        expect(read.contents[0]?.text).toBe(readFileSync(descriptor.file_path, "utf8"));
      }

      // The balancer alternated: both instances served the client, and the
      // extraction and a read landed on the instance the recall did not.
      const servedAll = (rpc: string, tool?: string) =>
        hits.filter((h) => h.rpc === rpc && h.tool === tool).map((h) => h.instance);
      const served = (rpc: string, tool?: string) => servedAll(rpc, tool)[0];
      const [a, b] = stateless as [HttpServer, HttpServer];
      expect(new Set(hits.map((h) => h.instance))).toEqual(new Set([a.url, b.url]));
      for (const [i, h] of hits.entries()) {
        if (i > 0) expect(h.instance).not.toBe(hits[i - 1]?.instance);
      }
      const recalledOn = served("tools/call", "recall_memories");
      const writer = recalledOn === a.url ? a : b;
      expect(descriptor.file_path.startsWith(writer.outputDir)).toBe(true);
      expect(served("tools/call", "lro_extract")).not.toBe(recalledOn);
      expect(new Set(servedAll("resources/read"))).toEqual(new Set([a.url, b.url]));
      expect(served("initialize")).not.toBe(served("tools/list"));

      // Another token's principal: the file does not exist for it, wherever it lands.
      const other = (await connect(sdk, stateless, B)).client;
      for (let i = 0; i < 2; i++) {
        const refused = await other.call("lro_extract", {
          file_path: descriptor.file_path,
          query: ".id",
        });
        expect(refused.isError).toBe(true);
        expect(text(refused)).toMatch(/^FILE_NOT_FOUND/);
      }
    }, 120_000);

    it(`${sdk}, sessions (the default): the same alternation is answered 404 "Session not found"`, async () => {
      const failed = connect(sdk, sessionful, A).then(async ({ client }) => client.tools());
      await expect(failed).rejects.toThrow(/Session not found/);
    }, 60_000);
  }
});
