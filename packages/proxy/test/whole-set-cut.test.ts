/**
 * A whole set the upstream cut for a bound of its own: `atlatl-proxy --url`
 * in front of `atlatl serve --http` whose `proxy_inline_bytes` is smaller than
 * the set. The proxy's file holds what arrived, and its cap notice names the
 * server's bound, not the proxy's `max_records` (which cut nothing).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServer, startHttpServer } from "../../server/test/http/spawn-http.js";
import { PROXY_MAIN, tempDir } from "./helpers.js";

const TOKEN = "cut-set-token";
const MATCHES = 400;
const INLINE_BYTES = 64 * 1024;

const out = tempDir("atlatl-proxy-cut-");
let server: HttpServer;

beforeAll(async () => {
  server = await startHttpServer({
    tokens: TOKEN,
    seed: MATCHES,
    env: { ATLATL_SERVER__HTTP__PROXY_INLINE_BYTES: String(INLINE_BYTES) },
  });
}, 60_000);
afterAll(async () => {
  if (server) expect(await server.stop()).toBe(0);
  out.remove();
});

describe("atlatl-proxy in front of a server that cuts the whole set", () => {
  it("says the server's proxy_inline_bytes cut the set, not max_records", async () => {
    const client = new Client({ name: "cut-set-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          "--conditions=source",
          "--import",
          "tsx",
          PROXY_MAIN,
          "--output-dir",
          out.dir,
          "--threshold",
          "500",
          "--url",
          `${server.url}/mcp`,
          "--header",
          `Authorization: Bearer ${TOKEN}`,
        ],
        env: { ...(process.env as Record<string, string>), ATLATL_CONFIG: "" },
        stderr: "pipe",
      }),
    );
    try {
      const r = (await client.callTool({
        name: "recall_memories",
        arguments: { query: "", limit: 1000, detail: "full", status: "any" },
      })) as CallToolResult;
      const descriptor = JSON.parse((r.content[0] as { text: string }).text);
      expect(descriptor.offloaded).toBe(true);
      const capped = descriptor.capped as { records_in_file: number; note: string };
      expect(capped).toMatchObject({ total_matches: MATCHES });
      expect(capped.records_in_file).toBeGreaterThan(0);
      expect(capped.records_in_file).toBeLessThan(MATCHES);
      expect(capped.note).toContain("[server.http] proxy_inline_bytes");
      expect(capped.note).toContain(`${INLINE_BYTES}-byte bound`);
      expect(capped.note).not.toContain("max_records");
      expect(descriptor.guidance).toContain("proxy_inline_bytes");
      expect(descriptor.guidance).not.toContain("max_records");
    } finally {
      await client.close();
    }
  }, 60_000);
});
