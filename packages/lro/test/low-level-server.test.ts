/**
 * lro_extract and the offload resources on the SDK's low-level `Server` (what a
 * proxy mirroring unknown tools uses), beside the tools and resources it
 * already serves; and the names an embedder chooses (file prefix, resource URI
 * prefix, `_meta` prefix, env prefix) used everywhere.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, expect, it } from "vitest";
import type { RecordsOffloadResponse } from "../src/index.js";
import { offloadCallToolResult, registerLroExtract, registerOffloadResources } from "../src/mcp.js";
import { listOffloadFiles, loadOffloadConfig, Offloader } from "../src/node.js";
import { recordingEvents, tempDir } from "./fixtures/helpers.js";

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

const rows = Array.from({ length: 100 }, (_, i) => ({
  id: i,
  path: `/srv/f${i}`,
  kind: i % 2 ? "file" : "dir",
}));

it("mounts lro_extract and the offload resources on a low-level Server beside its own, with the embedder's names", async () => {
  const t = tempDir("lro-lowlevel-");
  cleanups.push(t.cleanup);
  const config = loadOffloadConfig({
    env: {
      MYAPP_PROMPT__OFFLOAD__OUTPUT_DIR: join(t.dir, "out"),
      MYAPP_PROMPT__OFFLOAD__THRESHOLD_TOKENS: "100",
    },
    envPrefix: "MYAPP",
    overrides: { filePrefix: "myapp" },
  });
  expect(config.thresholdTokens).toBe(100);
  const { events } = recordingEvents();
  const offloader = new Offloader({ config, events });
  const names = { resourcePrefix: "myapp://files/", metaPrefix: "myapp/" };

  const server = new Server(
    { name: "proxy", version: "1.0.0" },
    { capabilities: { tools: {}, resources: {} } },
  );
  const upstreamTool = {
    name: "list_dir",
    description: "lists",
    inputSchema: { type: "object" as const, properties: {} },
  };
  const extract = registerLroExtract(server, {
    offloader,
    names,
    resourceLinks: true,
    upstream: {
      listTools: async () => ({ tools: [upstreamTool] }),
      callTool: async (request) =>
        offloadCallToolResult(
          offloader,
          { content: [{ type: "text", text: JSON.stringify(rows) }] },
          { operation: request.params.name, resourceLinks: true, names },
        ),
    },
  });
  cleanups.push(() => extract.close());
  const resources = registerOffloadResources(server, {
    config: offloader.config,
    names,
    events,
    upstream: {
      listResources: async () => ({ resources: [{ uri: "file:///readme", name: "readme" }] }),
      readResource: async (request) => ({
        contents: [{ uri: request.params.uri, text: "upstream text" }],
      }),
    },
  });
  cleanups.push(() => resources.close());

  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "c", version: "1.0.0" });
  await Promise.all([server.connect(a), client.connect(b)]);
  cleanups.push(() => client.close());

  const { tools } = await client.listTools();
  expect(tools.map((x) => x.name)).toEqual(["list_dir", "lro_extract"]);
  const extractTool = tools[1];
  expect(extractTool?.inputSchema.properties).toHaveProperty("file_path");

  const listed = (await client.callTool({ name: "list_dir", arguments: {} })) as CallToolResult;
  const first = listed.content[0];
  const d = JSON.parse(first?.type === "text" ? first.text : "{}") as RecordsOffloadResponse;
  expect(d.file_path).toMatch(/\/myapp-list_dir-[0-9A-Z]{26}\.jsonl$/);
  expect(readdirSync(join(t.dir, "out"))).toHaveLength(1);
  const link = listed.content.find((c) => c.type === "resource_link") as
    | { uri: string }
    | undefined;
  expect(link?.uri).toMatch(/^myapp:\/\/files\/myapp-list_dir-/);

  // lro_extract by path and by our URI, with our _meta keys.
  const byPath = (await client.callTool({
    name: "lro_extract",
    arguments: { file_path: d.file_path, query: 'select(.kind == "dir") | .id', limit: 3 },
  })) as CallToolResult;
  expect(byPath.isError).toBeFalsy();
  expect(byPath.content[0]).toMatchObject({ type: "text", text: "0\n2\n4\n" });
  expect(byPath._meta).toMatchObject({ "myapp/engine": "jq", "myapp/values": 3 });
  const byUri = (await client.callTool({
    name: "lro_extract",
    arguments: { file_path: link?.uri, recipe: 3 },
  })) as CallToolResult;
  expect(byUri.isError).toBeFalsy();
  expect(byUri.content[0]).toMatchObject({
    text: '[{"kind":"dir","count":50},{"kind":"file","count":50}]\n',
  });
  const bad = (await client.callTool({
    name: "lro_extract",
    arguments: { recipe: "x" },
  })) as CallToolResult;
  expect(bad.isError).toBe(true);

  // Resources: the upstream's and ours, read through the same handlers.
  const { resources: listedResources } = await client.listResources();
  expect(listedResources.map((r) => r.uri)).toEqual(["file:///readme", link?.uri]);
  const { resourceTemplates } = await client.listResourceTemplates();
  expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(["myapp://files/{name}"]);
  const read = await client.readResource({ uri: link?.uri as string });
  const content = read.contents[0] as { text: string; _meta?: Record<string, unknown> };
  expect(content.text.split("\n")[0]).toContain('"profile":"records"');
  expect(content._meta).toMatchObject({ "myapp/total_lines": 101 });
  const upstreamRead = await client.readResource({ uri: "file:///readme" });
  expect(upstreamRead.contents[0]).toMatchObject({ text: "upstream text" });

  // The files are ours under our prefix, not atlatl's.
  expect(await listOffloadFiles(offloader.config.outputDir, { ttlSeconds: 3600 })).toHaveLength(0);
  expect(
    await listOffloadFiles(offloader.config.outputDir, { ttlSeconds: 3600, filePrefix: "myapp" }),
  ).toHaveLength(1);
});
