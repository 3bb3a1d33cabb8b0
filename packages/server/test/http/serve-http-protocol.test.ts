/**
 * Protocol points 2025-11-25 allows and 2026-07-28 requires, met on the
 * 2025-era path too (issue 21): `tools/list` in one deterministic order (registration order, byte
 * for byte across sessions and processes, so clients can cache it), a missing
 * offload resource answered -32602 Invalid params, and an unsupported
 * `Mcp-Protocol-Version` header refused with 400 while the session keeps serving.
 * Real `atlatl serve --http` processes, the SDK's client and raw HTTP.
 */
import { rmSync } from "node:fs";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATLATL_TOOLS } from "../mcp/tool-names.js";
import { INITIALIZE, MCP_HEADERS, raw } from "./raw-request.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

describe("atlatl serve --http: protocol points of 2025-11-25 that 2026-07-28 requires", () => {
  let s: HttpServer;
  let other: HttpServer;
  beforeAll(async () => {
    [s, other] = await Promise.all([startHttpServer({ seed: 400 }), startHttpServer()]);
  }, 60_000);
  afterAll(async () => {
    if (s) expect(await s.stop()).toBe(0);
    if (other) expect(await other.stop()).toBe(0);
  });

  it("lists tools in registration order, byte-equal across sessions and server processes", async () => {
    const [a, b, c] = await Promise.all([s.connect(), s.connect(), other.connect()]);
    const [la, lb, lc] = await Promise.all([a.listTools(), b.listTools(), c.listTools()]);
    expect(la.tools.map((t) => t.name)).toEqual(ATLATL_TOOLS);
    const bytes = JSON.stringify(la.tools);
    expect(JSON.stringify(lb.tools)).toBe(bytes);
    expect(JSON.stringify(lc.tools)).toBe(bytes);
    // A second list on the same session, after a call, is the same again.
    await a.callTool({ name: "list_memories", arguments: { limit: 1 } });
    expect(JSON.stringify((await a.listTools()).tools)).toBe(bytes);
  });

  it("answers resources/read of a missing offload file with -32602 Invalid params", async () => {
    const client = await s.connect();
    const result = (await client.callTool({
      name: "recall_memories",
      arguments: { query: "", limit: 400, detail: "full" },
    })) as CallToolResult;
    const link = result.content.find((c) => c.type === "resource_link") as { uri: string };
    expect(link, "the broad recall was offloaded").toBeDefined();
    const descriptor = JSON.parse((result.content[0] as { text: string }).text);
    rmSync(descriptor.file_path);
    await expect(client.readResource({ uri: link.uri })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/FILE_NOT_FOUND: there is no offload file/),
    });
    // A well-formed name that never existed, and a URI no resource of atlatl has.
    const never = link.uri.replace(/-[0-9A-Z]{26}\.jsonl$/, "-01KAAAAAAAAAAAAAAAAAAAAAAA.jsonl");
    expect(never).not.toBe(link.uri);
    await expect(client.readResource({ uri: never })).rejects.toMatchObject({ code: -32602 });
    await expect(client.readResource({ uri: "test://nonexistent" })).rejects.toMatchObject({
      code: -32602,
    });
    // The session keeps serving.
    expect((await client.listTools()).tools.length).toBe(ATLATL_TOOLS.length);
  });

  it("refuses an unsupported Mcp-Protocol-Version with 400 and keeps the session serving", async () => {
    const init = await raw(s.url, "/mcp", {
      method: "POST",
      headers: MCP_HEADERS,
      body: { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: "2025-11-25" } },
    });
    expect(init.status).toBe(200);
    const session = init.headers["mcp-session-id"] as string;
    const list = (version?: string) =>
      raw(s.url, "/mcp", {
        method: "POST",
        headers: {
          ...MCP_HEADERS,
          "mcp-session-id": session,
          ...(version ? { "mcp-protocol-version": version } : {}),
        },
        body: { jsonrpc: "2.0", id: 2, method: "tools/list" },
      });
    // An older revision: the session's transport names the ones it speaks.
    const old = await list("1999-01-01");
    expect(old.status).toBe(400);
    expect(old.json()).toMatchObject({
      jsonrpc: "2.0",
      error: { message: expect.stringMatching(/Unsupported protocol version.*2025-11-25/) },
    });
    // Not a 2025-era revision: the 2026-07-28 path owns the answer (the SDK's
    // classification), which refuses it for want of the per-request envelope.
    const junk = await list("not-a-version");
    expect(junk.status).toBe(400);
    expect(junk.json()).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32602, message: expect.stringContaining("not-a-version") },
    });
    const ok = await list("2025-11-25");
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('"lro_extract"');
    // Another revision the server speaks than the one this session negotiated: served too
    // (the transport refuses unsupported versions only; docs/remote.md says so).
    for (const other of ["2025-06-18", "2024-10-07"]) {
      const r = await list(other);
      expect(r.status, other).toBe(200);
      expect(r.body).toContain('"lro_extract"');
    }
    // Without the header the server assumes 2025-03-26 (the transport spec's fallback).
    expect((await list()).status).toBe(200);
  });
});
