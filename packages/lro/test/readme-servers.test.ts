/**
 * The package README's examples, verbatim: each ```js block (one per SDK line)
 * is written to a file inside the workspace (so its imports resolve as a
 * user's would: `@atlatl/lro/*`, the SDK, zod), run as a stdio server, and
 * called by the SDK's real clients: the orders come back offloaded, lro_extract
 * answers from the file, and the file reads as a resource. The SDK 2.x example
 * serves both protocol generations: a client pinned to 2026-07-28 and one
 * pinned to 2025-11-25 each get the protocol they asked for.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client as Client2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioClientTransport2 } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const readme = readFileSync(join(here, "../README.md"), "utf8");
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] as string);

// Inside the workspace (node_modules/.cache is ignored by git), so bare imports resolve.
const cache = join(root, "node_modules", ".cache");
mkdirSync(cache, { recursive: true });
const work = mkdtempSync(join(cache, "atlatl-readme-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** How each example is served, and the clients it must serve. */
const lines = [
  {
    sdk: "SDK 1.x",
    imports: "@modelcontextprotocol/sdk/server/mcp.js",
    serves: "new StdioServerTransport()",
    clients: ["SDK 1.x"],
  },
  {
    sdk: "SDK 2.x",
    imports: "@modelcontextprotocol/server",
    serves: "serveStdio(",
    clients: ["SDK 1.x", "2025-11-25", "2026-07-28"],
  },
];

/** What the test asks of a client; both lines' `Client` have it. */
interface ReadmeClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<{ contents: { text?: string }[] }>;
  close(): Promise<void>;
}

/**
 * A client of the example in `file`: SDK 1.x's (it speaks 2025-11-25), or
 * SDK 2.x's held to one protocol version (checked once connected).
 */
async function connect(kind: string, file: string, outputDir: string): Promise<ReadmeClient> {
  const params = {
    command: process.execPath,
    args: ["--conditions=source", "--import", "tsx", file],
    env: {
      ...(process.env as Record<string, string>),
      ATLATL_CONFIG: "",
      ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: outputDir,
    },
    cwd: work,
    stderr: "pipe" as const,
  };
  if (kind === "SDK 1.x") {
    const client = new Client({ name: "readme", version: "1.0.0" });
    await client.connect(new StdioClientTransport(params));
    return client as ReadmeClient;
  }
  // SDK 2.x pins modern revisions; `legacy` is how it speaks 2025-11-25 only.
  const mode = kind === "2026-07-28" ? { pin: kind } : ("legacy" as const);
  const client = new Client2(
    { name: "readme", version: "1.0.0" },
    { versionNegotiation: { mode } },
  );
  await client.connect(new StdioClientTransport2(params));
  expect(client.getNegotiatedProtocolVersion()).toBe(kind);
  return client as unknown as ReadmeClient;
}

const text = (r: CallToolResult) => {
  const first = r.content[0];
  return first?.type === "text" ? first.text : "";
};

it("has one complete stdio server example per SDK line", () => {
  expect(blocks).toHaveLength(lines.length);
  for (const [i, line] of lines.entries()) {
    expect(blocks[i]).toContain(`from "${line.imports}"`);
    expect(blocks[i]).toContain(line.serves);
  }
});

const cases = lines.flatMap((line, i) => line.clients.map((client) => ({ ...line, i, client })));

describe.each(cases)("the $sdk example, called by a $client client", ({ i, client: kind }) => {
  it("runs as a stdio server: offloads, extracts, reads the file as a resource", async () => {
    const file = join(work, `example-${i}.mjs`);
    writeFileSync(file, blocks[i] as string);
    const outputDir = join(work, `out-${i}`);
    const client = await connect(kind, file, outputDir);
    try {
      const found = (await client.callTool({
        name: "find_orders",
        arguments: { customer: "acme" },
      })) as CallToolResult;
      expect(found.isError).toBeFalsy();
      const descriptor = JSON.parse(text(found));
      expect(descriptor.offloaded).toBe(true);
      expect(descriptor.summary.count).toBe(400);
      expect(descriptor.file_path.startsWith(outputDir)).toBe(true);

      const picked = (await client.callTool({
        name: "lro_extract",
        arguments: { file_path: descriptor.file_path, query: "select(.total == 0) | .id" },
      })) as CallToolResult;
      expect(picked.isError).toBeFalsy();
      expect(text(picked).trim().split("\n")).toEqual(
        Array.from({ length: 400 }, (_, n) => n)
          .filter((n) => (n * 37) % 500 === 0)
          .map((n) => JSON.stringify(`ord-${n}`)),
      );

      const link = found.content.find((c) => c.type === "resource_link");
      expect(link?.type === "resource_link" && link.uri).toMatch(/^atlatl:\/\/offload\//);
      const uri = link?.type === "resource_link" ? link.uri : "";
      const page = await client.readResource({ uri: `${uri}?offset=1&limit=1` });
      const content = page.contents[0];
      expect(JSON.parse(content?.text ?? "null")).toEqual({
        id: "ord-0",
        customer: "acme",
        total: 0,
      });
    } finally {
      await client.close();
    }
  });
});
