/**
 * Both protocol generations on one `/mcp` endpoint (issue 21): the SDK 2.x
 * client negotiating `auto`, pinned to 2026-07-28 and in `legacy` mode, and
 * the SDK 1.x client (initialize, `Mcp-Session-Id`), each offloads a broad
 * recall, reads it back with `lro_extract` and `resources/read`, and another
 * token gets not-found for the same handle. A legacy session and a modern
 * request of one token see the same files; a modern listener hears its own
 * principal's offload resources change and not another's. A real
 * `atlatl serve --http` process.
 */
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  Client as Client2,
  StreamableHTTPClientTransport as Transport2,
} from "@modelcontextprotocol/client";
import type { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport as Transport1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstIds } from "./offload-file.js";
import { MODERN, modern } from "./raw-request.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const A = "generations-token-a";
const B = "generations-token-b";
const broad = { query: "", limit: 300, detail: "full" };

type Mode = "auto" | "legacy" | { pin: string };

/** What both SDK clients' results look like here. */
interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string; uri?: string }[];
  structuredContent?: unknown;
}
/** The calls the scenario makes, the same on either SDK. */
interface Caller {
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  read(uri: string): Promise<{ contents: { text?: string }[] }>;
  listUris(): Promise<string[]>;
}

const text = (r: ToolResult) => r.content[0]?.text as string;
async function offload(c: Caller): Promise<{ path: string; uri: string }> {
  const r = await c.call("recall_memories", broad);
  const descriptor = JSON.parse(text(r));
  expect(descriptor.offloaded, text(r)).toBe(true);
  const link = r.content.find((x) => x.type === "resource_link");
  return { path: descriptor.file_path, uri: link?.uri as string };
}

/** The "Done when" scenario, driven through `a` (owner) and `b` (another token). */
async function scenario(a: Caller, b: Caller): Promise<void> {
  const { path, uri } = await offload(a);
  const extracted = await a.call("lro_extract", { file_path: path, query: ".id", limit: 2 });
  expect(extracted.isError, text(extracted)).toBeFalsy();
  expect(text(extracted)).toBe(firstIds(path, 2));
  expect((await a.read(uri)).contents[0]?.text).toBe(readFileSync(path, "utf8"));
  expect(await a.listUris()).toContain(uri);

  // B has a file of its own first: its directory exists, so only isolation keeps A's file from it.
  const own = await offload(b);
  expect(dirname(own.path)).not.toBe(dirname(path));
  const foreign = await b.call("lro_extract", { file_path: path, query: ".id" });
  expect(foreign.isError).toBe(true);
  expect(text(foreign)).toMatch(/^FILE_NOT_FOUND: there is no offload file /);
  await expect(b.read(uri)).rejects.toMatchObject({ code: -32602 });
  expect(await b.listUris()).not.toContain(uri);
}

function caller2(c: Client2): Caller {
  return {
    call: async (name, args) => (await c.callTool({ name, arguments: args })) as ToolResult,
    read: async (uri) => (await c.readResource({ uri })) as { contents: { text?: string }[] },
    listUris: async () => (await c.listResources()).resources.map((r) => r.uri),
  };
}
function caller1(c: Client1): Caller {
  return {
    call: async (name, args) => (await c.callTool({ name, arguments: args })) as ToolResult,
    read: async (uri) => (await c.readResource({ uri })) as { contents: { text?: string }[] },
    listUris: async () => (await c.listResources()).resources.map((r) => r.uri),
  };
}

describe("atlatl serve --http: both protocol generations", () => {
  let s: HttpServer;
  const opened: Client2[] = [];
  beforeAll(async () => {
    s = await startHttpServer({ tokens: `${A},${B}`, seed: 600 });
  }, 60_000);
  afterAll(async () => {
    for (const c of opened) await c.close().catch(() => {});
    if (s) expect(await s.stop()).toBe(0);
  });

  async function connect2(token: string, mode: Mode): Promise<Client2> {
    const client = new Client2(
      { name: "atlatl-http-test-2x", version: "1.0.0" },
      { versionNegotiation: { mode } },
    );
    await client.connect(
      new Transport2(new URL(`${s.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    opened.push(client);
    return client;
  }

  for (const [label, mode, era] of [
    ["auto", "auto", "modern"],
    ["pinned to 2026-07-28", { pin: MODERN }, "modern"],
    ["legacy", "legacy", "legacy"],
  ] as const) {
    it(`SDK 2.x client, ${label}: offloads, reads back, and another token gets not-found`, async () => {
      const [a, b] = await Promise.all([connect2(A, mode), connect2(B, mode)]);
      expect(a.getProtocolEra()).toBe(era);
      const session = (a.transport as Transport2).sessionId;
      if (era === "modern") {
        expect(a.getNegotiatedProtocolVersion()).toBe(MODERN);
        expect(session).toBeUndefined();
      } else expect(session).toEqual(expect.any(String));
      const tools = (await a.listTools()).tools.map((t) => t.name);
      expect(tools).toContain("lro_extract");
      await scenario(caller2(a), caller2(b));
    });
  }

  it("SDK 1.x client (initialize, Mcp-Session-Id): offloads, reads back, and another token gets not-found", async () => {
    const [a, b] = await Promise.all([s.connect({ token: A }), s.connect({ token: B })]);
    expect((a.transport as Transport1).sessionId).toEqual(expect.any(String));
    await scenario(caller1(a), caller1(b));
  });

  it("lets a legacy session and modern requests of one token read each other's files", async () => {
    const session = caller1(await s.connect({ token: A }));
    const fromSession = await offload(session);
    const read = await modern(s.url, "resources/read", { uri: fromSession.uri }, { token: A });
    expect(read.message.result?.contents).toEqual([
      expect.objectContaining({ text: readFileSync(fromSession.path, "utf8") }),
    ]);

    const call = await modern(
      s.url,
      "tools/call",
      { name: "recall_memories", arguments: broad },
      { token: A },
    );
    const descriptor = JSON.parse(call.message.result?.content?.[0]?.text as string);
    expect(descriptor.offloaded).toBe(true);
    const extracted = await session.call("lro_extract", {
      file_path: descriptor.file_path,
      query: ".id",
      limit: 2,
    });
    expect(text(extracted)).toBe(firstIds(descriptor.file_path, 2));
  });

  it("tells a 2026-07-28 listener when its own offload resources change, not another token's", async () => {
    const [listenerA, listenerB, writer] = await Promise.all([
      connect2(A, { pin: MODERN }),
      connect2(B, { pin: MODERN }),
      connect2(A, { pin: MODERN }),
    ]);
    let heardA = 0;
    let heardB = 0;
    listenerA.setNotificationHandler("notifications/resources/list_changed", () => {
      heardA++;
    });
    listenerB.setNotificationHandler("notifications/resources/list_changed", () => {
      heardB++;
    });
    const subA = await listenerA.listen({ resourcesListChanged: true });
    const subB = await listenerB.listen({ resourcesListChanged: true });
    try {
      await offload(caller2(writer));
      await expect.poll(() => heardA).toBeGreaterThan(0);
      // B's own offload reaches B. A stream delivers in order, so a notice of
      // A's offload, published before, would come first: let B's stream settle.
      await offload(caller2(listenerB));
      await expect.poll(() => heardB).toBeGreaterThan(0);
      await sleep(500);
      expect(heardB).toBe(1);
    } finally {
      await subA.close();
      await subB.close();
    }
  });
});
