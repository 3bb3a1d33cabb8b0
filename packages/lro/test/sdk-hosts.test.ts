/**
 * @atlatl/lro on every kind of host a TypeScript MCP server is written on:
 * SDK 1.x (`@modelcontextprotocol/sdk`) and SDK 2.x
 * (`@modelcontextprotocol/server`), each high-level (`McpServer`) and
 * low-level (`Server`). Each host serves a tool returning 300 orders through
 * `withOffload`, `lro_extract` and the offload resources; the SDK's real
 * client (1.x, and 2.x for the 2.x hosts) lists, calls, extracts and reads.
 * The registrations tell the hosts apart by what they declare, so a host on a
 * second SDK copy or on 2.x takes the right path.
 */
import {
  Client as Client2,
  InMemoryTransport as Memory2,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport as Memory1 } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server as Server1 } from "@modelcontextprotocol/sdk/server/index.js";
import {
  McpServer as McpServer1,
  ResourceTemplate as ResourceTemplate1,
} from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  createMcpHandler,
  McpServer as McpServer2,
  ResourceTemplate as ResourceTemplate2,
  Server as Server2,
} from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { LroEvents, type RecordsOffloadResponse } from "../src/index.js";
import { registerLroExtract, registerOffloadResources, withOffload } from "../src/mcp.js";
import { Offloader } from "../src/node.js";
import { tempDir } from "./fixtures/helpers.js";

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

const orders = (customer: string) =>
  Array.from({ length: 300 }, (_, i) => ({
    id: `ord-${i}`,
    customer,
    status: ["shipped", "pending", "cancelled"][i % 3],
    total: (i * 37) % 500,
  }));

const ordersTool = {
  name: "find_orders",
  description: "Orders of a customer",
  inputSchema: {
    type: "object" as const,
    properties: { customer: { type: "string" } },
    required: ["customer"],
  },
};

/** A connectable host with the three LRO parts mounted; `transport` is its SDK's own. */
interface Host {
  connect(transport: never): Promise<void>;
}

/** The clock of the offloader and the resources (epoch ms); default the real one. */
type Clock = () => number;

function lro(dir: string, now?: Clock) {
  const offloader = new Offloader({
    config: { enabled: true, thresholdTokens: 400, ttlSeconds: 3600, outputDir: dir },
    events: new LroEvents({ sink: null }),
    now,
  });
  const offload = withOffload({ offloader, resourceLinks: true });
  const handler = offload(async ({ customer }: { customer: string }) => ({
    operation: "search",
    query: customer,
    profile: "records" as const,
    records: orders(customer),
  }));
  return { offloader, handler, now };
}

/** Mount the orders tool, lro_extract and the resources on a low-level Server of either line. */
function lowLevel<S extends Parameters<typeof registerLroExtract>[0] & Host>(
  server: S,
  dir: string,
  now?: Clock,
): S {
  const { offloader, handler } = lro(dir, now);
  const extract = registerLroExtract(server, {
    offloader,
    resourceLinks: true,
    upstream: {
      listTools: async () => ({ tools: [ordersTool] }),
      callTool: async (request) =>
        handler({ customer: String(request.params.arguments?.customer) }),
    },
  });
  cleanups.push(() => extract.close());
  const resources = registerOffloadResources(server as never, { config: offloader.config, now });
  cleanups.push(() => resources.close());
  return server;
}

const hosts: Record<string, (dir: string, now?: Clock) => Host> = {
  "SDK 1.x McpServer": (dir, now) => {
    const { offloader, handler } = lro(dir, now);
    const server = new McpServer1({ name: "orders", version: "1.0.0" });
    server.registerTool(
      "find_orders",
      { description: ordersTool.description, inputSchema: { customer: z.string() } },
      handler,
    );
    const extract = registerLroExtract(server, { offloader, resourceLinks: true });
    cleanups.push(() => extract.close());
    registerOffloadResources(server, {
      config: offloader.config,
      ResourceTemplate: ResourceTemplate1,
      now,
    });
    return server;
  },
  "SDK 1.x low-level Server": (dir, now) =>
    lowLevel(new Server1({ name: "orders", version: "1.0.0" }, { capabilities: {} }), dir, now),
  "SDK 2.x McpServer": (dir, now) => {
    const { offloader, handler } = lro(dir, now);
    const server = new McpServer2({ name: "orders", version: "1.0.0" });
    server.registerTool(
      "find_orders",
      { description: ordersTool.description, inputSchema: z.object({ customer: z.string() }) },
      handler,
    );
    const extract = registerLroExtract(server, { offloader, resourceLinks: true });
    cleanups.push(() => extract.close());
    registerOffloadResources(server, {
      config: offloader.config,
      ResourceTemplate: ResourceTemplate2,
      now,
    });
    return server;
  },
  "SDK 2.x low-level Server": (dir, now) =>
    lowLevel(new Server2({ name: "orders", version: "1.0.0" }, { capabilities: {} }), dir, now),
};

/** What the test asks of a client; both lines' `Client` have it. */
interface TestClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: { text?: string }[] }>;
  close(): Promise<void>;
}

const clients = {
  "SDK 1.x Client": async (host: Host): Promise<TestClient> => {
    const [a, b] = Memory1.createLinkedPair();
    const client = new Client1({ name: "c", version: "1.0.0" });
    await Promise.all([host.connect(a as never), client.connect(b)]);
    return client as TestClient;
  },
  "SDK 2.x Client": async (host: Host): Promise<TestClient> => {
    const [a, b] = Memory2.createLinkedPair();
    const client = new Client2({ name: "c", version: "1.0.0" });
    await Promise.all([host.connect(a as never), client.connect(b)]);
    return client as unknown as TestClient;
  },
};

interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string; uri?: string }[];
}

const cases: [string, keyof typeof clients][] = [
  ["SDK 1.x McpServer", "SDK 1.x Client"],
  ["SDK 1.x low-level Server", "SDK 1.x Client"],
  ["SDK 2.x McpServer", "SDK 2.x Client"],
  ["SDK 2.x McpServer", "SDK 1.x Client"],
  ["SDK 2.x low-level Server", "SDK 2.x Client"],
  ["SDK 2.x low-level Server", "SDK 1.x Client"],
];

describe.each(cases)("%s, called by the %s", (hostName, clientName) => {
  it("offloads the orders, extracts from the file and reads it as a resource", async () => {
    const t = tempDir("lro-hosts-");
    cleanups.push(t.cleanup);
    const host = hosts[hostName]?.(t.dir);
    if (!host) throw new Error(`no host ${hostName}`);
    const client = await clients[clientName](host);
    cleanups.push(() => client.close());

    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(["find_orders", "lro_extract"]);

    const found = (await client.callTool({
      name: "find_orders",
      arguments: { customer: "acme" },
    })) as ToolResult;
    expect(found.isError).toBeFalsy();
    const descriptor = JSON.parse(found.content[0]?.text ?? "{}") as RecordsOffloadResponse;
    expect(descriptor.offloaded).toBe(true);
    expect(descriptor.summary.count).toBe(300);
    const link = found.content.find((c) => c.type === "resource_link");
    expect(link?.uri).toMatch(/^atlatl:\/\/offload\/atlatl-search-/);

    const extracted = (await client.callTool({
      name: "lro_extract",
      arguments: { file_path: descriptor.file_path, query: "select(.total >= 490) | .id" },
    })) as ToolResult;
    expect(extracted.isError).toBeFalsy();
    const expected = orders("acme")
      .filter((o) => o.total >= 490)
      .map((o) => `"${o.id}"\n`)
      .join("");
    expect(expected.length).toBeGreaterThan(0);
    expect(extracted.content[0]?.text).toBe(expected);

    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(link?.uri);
    const page = await client.readResource({ uri: `${link?.uri}?offset=1&limit=2` });
    const lines = (page.contents[0]?.text ?? "").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l))).toEqual(orders("acme").slice(0, 2));

    // A missing file is "resource not found" as SDK 2.x says it: -32602 with data.uri.
    const missing = "atlatl://offload/atlatl-search-missing.jsonl";
    await expect(client.readResource({ uri: missing })).rejects.toMatchObject({
      code: -32602,
      data: { uri: missing },
    });
  });
});

const HOUR_MS = 3600 * 1000;

describe.each(["SDK 2.x McpServer", "SDK 2.x low-level Server"])(
  "%s serving MCP 2026-07-28 through createMcpHandler",
  (hostName) => {
    it("reads an offload file as private for its remaining life; the lists are private with ttlMs 0; an expired file is not found", async () => {
      const t = tempDir("lro-modern-");
      cleanups.push(t.cleanup);
      let clock = Date.UTC(2026, 6, 28, 12);
      const now = () => clock;
      // A fresh server per request, as the stateless protocol has it.
      const handler = createMcpHandler(
        () => hosts[hostName]?.(t.dir, now) as McpServer2 | Server2,
        {
          legacy: "reject",
        },
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
      cleanups.push(() => client.close());
      expect(client.getProtocolEra()).toBe("modern");

      const found = (await client.callTool({
        name: "find_orders",
        arguments: { customer: "acme" },
      })) as ToolResult;
      const uri = found.content.find((c) => c.type === "resource_link")?.uri ?? "";
      expect(uri).toMatch(/^atlatl:\/\/offload\/atlatl-search-/);

      clock += 1000 * 1000;
      const page = await client.readResource({ uri: `${uri}?offset=1&limit=2` });
      expect(page).toMatchObject({ cacheScope: "private", ttlMs: HOUR_MS - 1000 * 1000 });
      const text = (page.contents[0] as { text?: string } | undefined)?.text ?? "";
      expect(
        text
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l)),
      ).toEqual(orders("acme").slice(0, 2));
      const list = await client.listResources();
      expect(list.resources.map((r) => r.uri)).toContain(uri);
      expect(list).toMatchObject({ cacheScope: "private", ttlMs: 0 });
      expect(await client.listResourceTemplates()).toMatchObject({
        cacheScope: "private",
        ttlMs: 0,
      });

      clock += HOUR_MS - 1000 * 1000 - 1;
      expect(await client.readResource({ uri })).toMatchObject({ ttlMs: 1 });
      clock += 1;
      // Another URI: the 2.x client serves a repeated read from its cache for ttlMs.
      const late = `${uri}?limit=1`;
      const expired = await client.readResource({ uri: late }).catch((e: unknown) => e);
      expect(expired).toMatchObject({ code: -32602, data: { uri: late } });
      expect((expired as Error).message).toMatch(/FILE_EXPIRED/);
    });
  },
);
