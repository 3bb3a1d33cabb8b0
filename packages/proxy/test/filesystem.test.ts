/**
 * The proxy in front of the reference `@modelcontextprotocol/server-filesystem`
 * (installed from npm), on a temporary directory tree, compared with a direct
 * connection. The client answers roots/list (forwarded through the proxy).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { reassembleResult } from "@atlatl/lro/mcp";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ListRootsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OUTPUT_SCHEMA_META_KEY } from "../src/proxy/output-schema.js";
import {
  direct,
  FILESYSTEM,
  type Peer,
  type Peer2,
  proxied,
  proxied2,
  tempDir,
} from "./helpers.js";
import { runAllRecipes } from "./recipes.js";

const data = tempDir("atlatl-proxy-fs-data-");
const out = tempDir("atlatl-proxy-fs-out-");
let d: Peer;
let p: Peer;
let rootsAsked = 0;

function roots(client: Client) {
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    rootsAsked++;
    return { roots: [{ uri: pathToFileURL(data.dir).href, name: "data" }] };
  });
}

beforeAll(async () => {
  for (let i = 0; i < 40; i++) {
    const sub = join(data.dir, `module-${String(i).padStart(2, "0")}`);
    mkdirSync(join(sub, "src"), { recursive: true });
    for (let j = 0; j < 12; j++)
      writeFileSync(join(sub, "src", `file-${j}.ts`), `export const v = ${j};\n`);
    writeFileSync(join(sub, "README.md"), `# module ${i}\n`);
  }
  const lines = Array.from(
    { length: 4000 },
    (_, i) => `${i}\tentry ${i} \u00e9l\u00e8ve "quoted" \\ back`,
  );
  writeFileSync(join(data.dir, "big.log"), `${lines.join("\n")}\n`);
  writeFileSync(join(data.dir, "small.txt"), "just a little file\n");
  [d, p] = await Promise.all([
    direct([FILESYSTEM, data.dir], roots),
    proxied([FILESYSTEM, data.dir], ["--output-dir", out.dir], roots),
  ]);
});
afterAll(async () => {
  await Promise.all([d?.close(), p?.close()]);
  data.remove();
  out.remove();
});

function restoreOutputSchema(t: Tool): Tool {
  const meta = { ...(t._meta ?? {}) } as Record<string, unknown>;
  const schema = meta[OUTPUT_SCHEMA_META_KEY];
  if (schema === undefined) return t;
  delete meta[OUTPUT_SCHEMA_META_KEY];
  const { _meta: _m, ...tool } = t;
  return {
    ...tool,
    outputSchema: schema as Tool["outputSchema"],
    ...(Object.keys(meta).length ? { _meta: meta } : {}),
  };
}

describe("atlatl-proxy in front of server-filesystem", () => {
  it("lists every tool the same (output schemas moved to _meta), plus lro_extract", async () => {
    const [dt, pt] = await Promise.all([d.client.listTools(), p.client.listTools()]);
    expect(pt.tools.slice(0, -1).map(restoreOutputSchema)).toEqual(dt.tools);
    expect(pt.tools.at(-1)?.name).toBe("lro_extract");
    expect(p.client.getServerVersion()).toEqual(d.client.getServerVersion());
    // The offload lists carry @atlatl/lro's 2026-07-28 cache fields, which 2025 clients ignore.
    expect(await p.client.listResourceTemplates()).toEqual({
      resourceTemplates: [expect.objectContaining({ uriTemplate: "atlatl://offload/{name}" })],
      cacheScope: "private",
      ttlMs: 0,
    });
  });

  it("forwards roots/list to the client, and small results are byte-identical", async () => {
    const calls = [
      { name: "list_allowed_directories", arguments: {} },
      { name: "read_text_file", arguments: { path: join(data.dir, "small.txt") } },
      { name: "list_directory", arguments: { path: join(data.dir, "module-00") } },
      { name: "get_file_info", arguments: { path: join(data.dir, "no-such-file") } },
      { name: "read_text_file", arguments: { path: "/etc/passwd" } },
    ];
    for (const call of calls) {
      const [a, b] = await Promise.all([d.client.callTool(call), p.client.callTool(call)]);
      expect(JSON.stringify(b), call.name).toBe(JSON.stringify(a));
    }
    expect(rootsAsked).toBeGreaterThanOrEqual(2);
  });

  it("offloads a big directory tree as records: recipes in bash + jq, lro_extract, reassembly", async () => {
    const call = { name: "directory_tree", arguments: { path: data.dir } };
    const [a, b] = await Promise.all([d.client.callTool(call), p.client.callTool(call)]);
    const descriptor = JSON.parse((b.content as { text: string }[])[0]?.text as string);
    expect(descriptor.offloaded).toBe(true);
    expect(Object.keys(descriptor.files)).toEqual(["records", "text", "structured"]);
    expect(descriptor.summary.records.count).toBe(42);
    expect(descriptor.schemas.records.line_schema).toHaveProperty("children");

    const back = await reassembleResult(descriptor);
    expect(back.structuredContent).toEqual(a.structuredContent);
    const direct0 = (a.content as { text: string }[])[0]?.text as string;
    expect(back.content).toHaveLength(1);
    expect((back.content[0] as { text: string }).text).toBe(direct0);

    const outputs = await runAllRecipes(descriptor.jq_recipes, "module-1", descriptor.guidance);
    expect(outputs.count_records?.trim()).toBe("42");
    expect(outputs.search_name?.trim().split("\n")).toHaveLength(10);
    expect(outputs.count_by_type).toMatch(/40 directory/);

    const extracted = await p.client.callTool({
      name: "lro_extract",
      arguments: {
        file_path: descriptor.files.records,
        query: 'select(.type == "file") | .name',
        raw: true,
      },
    });
    expect((extracted.content as { text: string }[])[0]?.text).toBe("big.log\nsmall.txt\n");
  });

  it("offloads a big file as text lines, with the structured copy pointing at them", async () => {
    const call = { name: "read_text_file", arguments: { path: join(data.dir, "big.log") } };
    const [a, b] = await Promise.all([d.client.callTool(call), p.client.callTool(call)]);
    const descriptor = JSON.parse((b.content as { text: string }[])[0]?.text as string);
    expect(Object.keys(descriptor.files)).toEqual(["text", "structured"]);
    const back = await reassembleResult(descriptor);
    expect(back).toEqual({ content: a.content, structuredContent: a.structuredContent });
    const structuredFile = readFileSync(descriptor.files.structured, "utf8").split("\n")[1];
    expect(JSON.parse(structuredFile as string)).toEqual({ content: { $text_block: 0 } });

    const outputs = await runAllRecipes(descriptor.jq_recipes, "entry 3999 ", descriptor.guidance);
    expect(outputs.read_text).toBe(`${(a.content as { text: string }[])[0]?.text}\n`);
    expect(outputs.grep_text).toContain(
      '0:4000: 3999\tentry 3999 \u00e9l\u00e8ve "quoted" \\ back',
    );
  });
});

describe("a 2026-07-28 client through the proxy, server-filesystem asking roots/list at start-up", () => {
  // The server's command line names one directory, the client's roots another: the
  // roots win directly, and must through the proxy too (issue 28, item 10).
  const cli = tempDir("atlatl-proxy-fs-cli-");
  const root = tempDir("atlatl-proxy-fs-root-");
  const rootList = { roots: [{ uri: pathToFileURL(root.dir).href, name: "project" }] };
  let direct1: Peer;
  let modern: Peer2;
  let modernAsked = 0;
  beforeAll(async () => {
    writeFileSync(join(root.dir, "in-root.txt"), "from the client's root\n");
    [direct1, modern] = await Promise.all([
      direct([FILESYSTEM, cli.dir], (client) =>
        client.setRequestHandler(ListRootsRequestSchema, async () => rootList),
      ),
      proxied2([FILESYSTEM, cli.dir], ["--output-dir", out.dir], { pin: "2026-07-28" }, (c) =>
        c.setRequestHandler("roots/list", async () => {
          modernAsked++;
          return rootList;
        }),
      ),
    ]);
  });
  afterAll(async () => {
    await Promise.all([direct1?.close(), modern?.close()]);
    cli.remove();
    root.remove();
  });

  it("serves the client's roots, as the server does directly, asking the client once", async () => {
    const call = { name: "list_allowed_directories", arguments: {} };
    const a = await direct1.client.callTool(call);
    expect(JSON.stringify(a.content)).toContain(root.dir);
    const b = await modern.client.callTool(call);
    expect(b.content).toEqual(a.content);
    const read = await modern.client.callTool({
      name: "read_text_file",
      arguments: { path: join(root.dir, "in-root.txt") },
    });
    expect(read.isError).toBeFalsy();
    expect(JSON.stringify(read.content)).toContain("from the client's root");
    expect(modernAsked).toBe(1);
  });
});
