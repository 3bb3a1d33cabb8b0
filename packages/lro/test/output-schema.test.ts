/**
 * Tools that declare an `outputSchema`, registered through
 * `withOffload(…).registerTool` on an `McpServer` of SDK 1.x and 2.x and
 * called by the SDK's real clients (2025-11-25, and 2026-07-28 through
 * `createMcpHandler`): a large result is offloaded and the call succeeds; a
 * small one comes back with its structured content; a records tool answers
 * inline; the schema is listed in `_meta["atlatl/outputSchema"]`, not as
 * `outputSchema` (a descriptor cannot conform to it); structured content that
 * does not conform is an error, and nothing is written for it. A tool whose
 * results are never offloaded keeps its schema.
 */
import { readdirSync } from "node:fs";
import {
  Client as Client2,
  InMemoryTransport as Memory2,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport as Memory1 } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer as McpServer1 } from "@modelcontextprotocol/sdk/server/mcp.js";
import { createMcpHandler, McpServer as McpServer2 } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { LroEvents } from "../src/index.js";
import { withOffload } from "../src/mcp.js";
import { Offloader } from "../src/node.js";
import { tempDir } from "./fixtures/helpers.js";

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

const orders = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `ord-${i}`, total: (i * 37) % 500 }));

const outputSchema = z.object({
  orders: z.array(z.object({ id: z.string(), total: z.number() })),
});

interface Registrar {
  registerTool(name: string, config: never, callback: never): unknown;
  connect(transport: never): Promise<void>;
}

/** The three tools on `server`, each declaring `outputSchema`. */
function mount<S extends Registrar>(server: S, dir: string): S {
  const offloader = new Offloader({
    config: { enabled: true, thresholdTokens: 400, ttlSeconds: 3600, outputDir: dir },
    events: new LroEvents({ sink: null }),
  });
  const offload = withOffload({ offloader, callResults: { operation: "report" } });
  const inputSchema = { n: z.number() };
  offload.registerTool(
    server,
    "report",
    { description: "Orders report", inputSchema, outputSchema },
    async ({ n }: { n: number }) => {
      const structuredContent = { orders: orders(n) };
      return {
        content: [{ type: "text" as const, text: JSON.stringify(structuredContent) }],
        structuredContent,
      };
    },
  );
  offload.registerTool(
    server,
    "find",
    { inputSchema, outputSchema },
    async ({ n }: { n: number }) => ({
      operation: "find",
      profile: "records" as const,
      records: orders(n),
    }),
  );
  offload.registerTool(
    server,
    "broken",
    { inputSchema, outputSchema },
    async ({ n }: { n: number }) => {
      const structuredContent = { orders: orders(n).map((o) => ({ ...o, total: "many" })) };
      return {
        content: [{ type: "text" as const, text: JSON.stringify(structuredContent) }],
        structuredContent,
      };
    },
  );
  // Never offloaded: the tool keeps its schema, and the SDK checks its results.
  withOffload({ offloader, policy: { mode: "never" } }).registerTool(
    server,
    "kept",
    { inputSchema, outputSchema },
    async ({ n }: { n: number }) => {
      const structuredContent = { orders: orders(n) };
      return {
        content: [{ type: "text" as const, text: JSON.stringify(structuredContent) }],
        structuredContent,
      };
    },
  );
  return server;
}

interface TestClient {
  listTools(): Promise<{
    tools: { name: string; outputSchema?: unknown; _meta?: Record<string, unknown> }[];
  }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

interface Result {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: unknown;
}

const connect = {
  "SDK 1.x Client": async (server: Registrar) => {
    const [a, b] = Memory1.createLinkedPair();
    const client = new Client1({ name: "c", version: "1.0.0" });
    await Promise.all([server.connect(a as never), client.connect(b)]);
    return client as unknown as TestClient;
  },
  "SDK 2.x Client": async (server: Registrar) => {
    const [a, b] = Memory2.createLinkedPair();
    const client = new Client2({ name: "c", version: "1.0.0" });
    await Promise.all([server.connect(a as never), client.connect(b)]);
    return client as unknown as TestClient;
  },
};

type Setup = (dir: string) => Promise<TestClient>;

const setups: Record<string, Setup> = {
  "SDK 1.x McpServer, SDK 1.x Client": (dir) =>
    connect["SDK 1.x Client"](mount(new McpServer1({ name: "o", version: "1" }) as never, dir)),
  "SDK 2.x McpServer, SDK 2.x Client": (dir) =>
    connect["SDK 2.x Client"](mount(new McpServer2({ name: "o", version: "1" }) as never, dir)),
  "SDK 2.x McpServer, SDK 1.x Client": (dir) =>
    connect["SDK 1.x Client"](mount(new McpServer2({ name: "o", version: "1" }) as never, dir)),
  "SDK 2.x McpServer, 2026-07-28 client over HTTP": async (dir) => {
    const handler = createMcpHandler(
      () => mount(new McpServer2({ name: "o", version: "1" }) as never, dir) as McpServer2,
      { legacy: "reject" },
    );
    cleanups.push(() => handler.close());
    const client = new Client2(
      { name: "c", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://lro.test/mcp"), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
    );
    return client as unknown as TestClient;
  },
};

describe.each(Object.keys(setups))("%s", (setup) => {
  it("lists the schema in _meta, offloads a large structured result, keeps a small one, answers a records tool inline, refuses a non-conforming one", async () => {
    const t = tempDir("lro-output-schema-");
    cleanups.push(t.cleanup);
    const client = await (setups[setup] as Setup)(t.dir);
    cleanups.push(() => client.close());

    const { tools } = await client.listTools();
    const kept = tools.find((tool) => tool.name === "kept");
    expect(kept?.outputSchema).toMatchObject({ properties: { orders: { type: "array" } } });
    expect(kept?._meta?.["atlatl/outputSchema"]).toBeUndefined();
    const kept300 = (await client.callTool({ name: "kept", arguments: { n: 300 } })) as Result;
    expect(kept300.structuredContent).toEqual({ orders: orders(300) });
    for (const tool of tools.filter((t) => t !== kept)) {
      expect(tool.outputSchema).toBeUndefined();
      expect(tool._meta?.["atlatl/outputSchema"]).toMatchObject({
        type: "object",
        properties: { orders: { type: "array" } },
        required: ["orders"],
      });
    }

    const large = (await client.callTool({ name: "report", arguments: { n: 300 } })) as Result;
    expect(large.isError).toBeFalsy();
    const descriptor = JSON.parse(large.content[0]?.text ?? "{}");
    expect(descriptor.offloaded).toBe(true);
    expect(descriptor.summary.count).toBe(300);
    expect(readdirSync(t.dir)).toHaveLength(1);

    const small = (await client.callTool({ name: "report", arguments: { n: 2 } })) as Result;
    expect(small.isError).toBeFalsy();
    expect(small.structuredContent).toEqual({ orders: orders(2) });

    const found = (await client.callTool({ name: "find", arguments: { n: 2 } })) as Result;
    expect(found.isError).toBeFalsy();
    expect(found.content[0]?.text).toContain('"ord-1"');

    const broken = (await client.callTool({ name: "broken", arguments: { n: 300 } })) as Result;
    expect(broken.isError).toBe(true);
    expect(broken.content[0]?.text).toMatch(
      /^INTERNAL: Output validation error: .*orders\.0\.total/,
    );
    expect(readdirSync(t.dir)).toHaveLength(1);
  });
});
