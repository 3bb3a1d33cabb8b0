/**
 * A NUL character in a filter tag or a query (PostgreSQL text cannot hold one):
 * the same `INVALID_ARGUMENT` naming the field on both backends, as a REST 400
 * and as an MCP tool error, and the server keeps serving.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type StoreTarget } from "../backends/backends.js";
import { raw } from "./raw-request.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const TOKEN = "nul-filter-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };

describe.each(BACKENDS)("NUL in a filter or query ($name)", (backend) => {
  let s: HttpServer;
  let target: StoreTarget;
  let client: Client;

  beforeAll(async () => {
    target = await backend.serverConfig("");
    const url = target.config.url;
    s = await startHttpServer({ tokens: TOKEN, env: url ? { ATLATL_STORE__URL: url } : {} });
    client = await s.connect();
    const created = await client.callTool({
      name: "capture_memory",
      arguments: { content: "the ledger rotation runbook", tags: ["ops"] },
    });
    expect(created.isError).toBeFalsy();
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    await target?.cleanup();
  });

  it("REST: 400 naming the field", async () => {
    for (const [query, field] of [
      ["/v1/memories?tag=%00", "tag"],
      ["/v1/memories?tag=ops%00x", "tag"],
      ["/v1/recall?q=ledger%00", "query"],
      ["/v1/search?q=ledger%00", "query"],
    ] as const) {
      const res = await raw(s.url, query, { headers: auth });
      expect(res.status, `${query}: ${res.body}`).toBe(400);
      expect(res.json<{ field: string }>().field, query).toBe(field);
    }
    const ok = await raw(s.url, "/v1/memories?tag=ops", { headers: auth });
    expect(ok.status).toBe(200);
  });

  it("MCP: INVALID_ARGUMENT naming the field", async () => {
    for (const [name, args, field] of [
      ["list_memories", { tags: ["\u0000"] }, "tag"],
      ["recall_memories", { query: "ledger", tags: ["ops\u0000"] }, "tag"],
      ["search_memories", { query: "ledger\u0000" }, "query"],
      ["recall_memories", { query: "ledger\u0000" }, "query"],
    ] as const) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, name).toBe(true);
      const text = (r.content as { type: string; text: string }[])[0]?.text ?? "";
      expect(text, name).toMatch(new RegExp(`^INVALID_ARGUMENT \\(${field}\\): `));
    }
    const listed = await client.callTool({ name: "list_memories", arguments: { tags: ["ops"] } });
    expect(listed.isError).toBeFalsy();
  });
});
