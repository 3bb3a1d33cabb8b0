/**
 * The README's "Using the engine in your own MCP server" example, run for real:
 * if this breaks, the README is wrong. Its order records go through the
 * records profile: the descriptor's schema names the order fields, and every
 * recipe it lists runs in real bash + jq and prints the right, non-empty answer
 * (and `lro_extract` gives the same values for the same recipe number).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, expect, it } from "vitest";
import { z } from "zod";
import type { RecordsOffloadResponse } from "../src/index.js";
import { registerLroExtract, registerOffloadResources, withOffload } from "../src/mcp.js";
import { loadOffloadConfig, Offloader } from "../src/node.js";
import { parseJsonStream, recipeBash } from "./fixtures/helpers.js";

const dir = mkdtempSync(join(tmpdir(), "lro-readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Order {
  id: string;
  customer: string;
  status: string;
  total: number;
  created: string;
  items: string[];
}

const STATUSES = ["shipped", "pending", "cancelled"];

const db = {
  async orders(customer: string): Promise<Order[]> {
    return Array.from({ length: 400 }, (_, i) => ({
      id: `ord-${i}`,
      customer,
      status: STATUSES[i % 7 === 0 ? 2 : i % 3 === 0 ? 1 : 0] as string,
      total: (i * 37) % 500,
      created: new Date(Date.UTC(2025, 0, 1) + ((i * 7919) % 400) * 86_400_000).toISOString(),
      items: ["widget", "gadget"].slice(0, (i % 2) + 1),
    }));
  },
};

function textOf(r: CallToolResult): string {
  const first = r.content[0];
  return first?.type === "text" ? first.text : "";
}

function countBy<T>(xs: readonly T[], key: (x: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return m;
}

/** What each recipe of the order descriptor must print, by its description. */
function expectedOutputs(orders: Order[]): Record<string, unknown[]> {
  const byStatus = countBy(orders, (o) => o.status);
  const topStatus = [...byStatus.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] as string;
  return {
    "List id and customer": orders.map((o) => `${o.id}\t${o.customer}`),
    "Filter by status": orders.filter((o) => o.status === topStatus),
    "Count by status": [
      [...byStatus.entries()]
        .sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .map(([status, count]) => ({ status, count })),
    ],
    "Search customer by keyword": orders,
  };
}

it("offloads order records with the records profile: order schema, order recipes that run in bash + jq", async () => {
  const offloader = new Offloader({
    config: loadOffloadConfig({ env: { ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: dir } }),
  });
  const offload = withOffload({ offloader, resourceLinks: true });
  const server = new McpServer({ name: "my-server", version: "1.0.0" });

  server.registerTool(
    "find_orders",
    { inputSchema: { customer: z.string() } },
    offload(async ({ customer }) => ({
      operation: "search",
      query: customer,
      profile: "records",
      records: await db.orders(customer),
    })),
  );
  const extract = registerLroExtract(server, { offloader });
  registerOffloadResources(server, { config: offloader.config, ResourceTemplate });

  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "readme", version: "1.0.0" });
  await Promise.all([server.connect(a), client.connect(b)]);
  try {
    const orders = await db.orders("acme");
    const result = (await client.callTool({
      name: "find_orders",
      arguments: { customer: "acme" },
    })) as CallToolResult;
    const descriptor = JSON.parse(textOf(result)) as RecordsOffloadResponse;
    expect(descriptor.offloaded).toBe(true);
    expect(descriptor.summary).toMatchObject({
      count: 400,
      operation: "search",
      top_values: { status: ["shipped", "pending", "cancelled"] },
      range: { total: [0, 499] },
    });
    expect(descriptor.line_schema).toEqual({
      id: "string",
      customer: "string",
      status: "string",
      total: "integer",
      created: "string",
      items: "array<string>",
    });
    expect(descriptor.preview).toEqual(orders[0]);
    const lines = readFileSync(descriptor.file_path, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(401);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      type: "lro_header",
      operation: "search",
      count: 400,
      profile: "records",
    });
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(orders);
    // Native guidance (lro_extract is registered): the recipes by number, the path once as F.
    expect(descriptor.guidance).toContain("`lro_extract`: file_path, recipe=N");
    expect(descriptor.guidance.split("\n")[0]).toBe(`F=${descriptor.file_path}`);

    const expected = expectedOutputs(orders);
    expect(descriptor.jq_recipes.map((r) => r.description)).toEqual(Object.keys(expected));
    for (const [i, recipe] of descriptor.jq_recipes.entries()) {
      const want = expected[recipe.description] as unknown[];
      const run = recipeBash(descriptor, recipe.command);
      expect(run.code, `${recipe.description}: ${run.stderr}`).toBe(0);
      const got =
        recipe.description === "List id and customer"
          ? run.stdout.trimEnd().split("\n")
          : parseJsonStream(run.stdout);
      expect(got.length, recipe.description).toBeGreaterThan(0);
      expect(got, recipe.description).toEqual(want);

      // The same recipe number through lro_extract, with the shell command's parameter values.
      const params =
        recipe.description === "Filter by status"
          ? { value: "shipped" }
          : recipe.description === "Search customer by keyword"
            ? { keyword: "acme" }
            : undefined;
      const native = (await client.callTool({
        name: "lro_extract",
        arguments: {
          file_path: descriptor.file_path,
          recipe: i + 1,
          ...(params ? { params } : {}),
        },
      })) as CallToolResult;
      expect(native.isError, textOf(native)).toBeFalsy();
      let nativeOut: unknown[];
      if (textOf(native).startsWith('{"offloaded"')) {
        // Too large to return: written to a derived file, one value (or array element) per line.
        const derived = JSON.parse(textOf(native)) as { files: { results: string } };
        const values = readFileSync(derived.files.results, "utf8")
          .trimEnd()
          .split("\n")
          .slice(1)
          .map((l) => JSON.parse(l) as unknown);
        const single = want.length === 1 && Array.isArray(want[0]);
        nativeOut = single ? [values] : values;
      } else {
        nativeOut =
          recipe.description === "List id and customer"
            ? textOf(native).trimEnd().split("\n")
            : parseJsonStream(textOf(native));
      }
      expect(nativeOut, `lro_extract recipe ${i + 1}`).toEqual(want);
    }

    // A custom query, as before.
    const big = (await client.callTool({
      name: "lro_extract",
      arguments: {
        file_path: descriptor.file_path,
        query: "select(.total >= $min) | .id",
        params: { min: 490 },
      },
    })) as CallToolResult;
    expect(big.isError).toBeFalsy();
    const ids = textOf(big)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(ids).toEqual(orders.filter((o) => o.total >= 490).map((o) => o.id));
  } finally {
    await client.close();
    await extract.close();
  }
});
