/**
 * Scale-out under load (issue 22): 50 concurrent agents spread over two real
 * `atlatl serve --http` processes on one PostgreSQL database with the shared
 * offload store. Each agent offloads on one instance and extracts on the
 * other (with a custom jq filter): no errors, every file complete there, and once its short TTL has
 * passed each file is reported expired exactly once across both instances
 * (the `OffloadFileExpired` lines of their stderr logs). SDK 1.x clients.
 * Declared when `ATLATL_TEST_PG_URL` is set or CI requires it.
 */
import { basename } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { BACKENDS, PG_ENABLED, type StoreTarget } from "../backends/backends.js";
import { type HttpServer, startHttpServer } from "../http/spawn-http.js";

const TOKENS = ["fifty-agents-token-a", "fifty-agents-token-b"];
const AGENTS = 50;
const TTL_SECONDS = 8;
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

/** Names of the files each instance's log reports expired, one entry per report. */
function expiredReports(servers: readonly HttpServer[]): string[] {
  const names: string[] = [];
  for (const s of servers) {
    for (const line of s.stderr().split("\n")) {
      if (!line.includes('"OffloadFileExpired"')) continue;
      const event = JSON.parse(line.slice(line.indexOf("{"))) as { path: string; reason: string };
      if (event.reason === "expired") names.push(basename(event.path));
    }
  }
  return names;
}

/**
 * One agent: offload on `writer`, extract every record's id on `reader` with a
 * custom filter run by the jq workers (not a recipe's fast path). Each
 * instance gets 25 of them from one token at once: more than the token's
 * waiting places, so some wait in the token's line for one.
 */
async function agent(writer: Client, reader: Client): Promise<string> {
  const recalled = (await writer.callTool({
    name: "recall_memories",
    arguments: { query: "", limit: 300, detail: "full" },
  })) as CallToolResult;
  expect(recalled.isError).toBeFalsy();
  const descriptor = JSON.parse(text(recalled));
  expect(descriptor.offloaded).toBe(true);
  const extracted = (await reader.callTool({
    name: "lro_extract",
    arguments: {
      file_path: descriptor.file_path,
      query: "{id, namespace} | select(.id != null) | .id",
    },
  })) as CallToolResult;
  expect(extracted.isError, text(extracted)).toBeFalsy();
  expect(extracted._meta?.["atlatl/engine"]).toBe("jq");
  // One id per record of the file: every record was read, from a complete file.
  expect(extracted._meta?.["atlatl/values"]).toBe(descriptor.summary.count);
  return basename(descriptor.file_path);
}

describe.runIf(PG_ENABLED)("50 agents over two instances sharing the offload store", () => {
  let target: StoreTarget | undefined;
  const servers: HttpServer[] = [];
  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null) await s.stop();
    await target?.cleanup();
  });

  it("0 errors, every file complete on the other instance, each swept once after its TTL", async () => {
    const postgres = BACKENDS.find((b) => b.name === "postgres");
    if (!postgres) throw new Error("the postgres backend is not declared");
    target = await postgres.serverConfig("");
    const env = {
      ATLATL_OFFLOAD_STORE__BACKEND: "postgres",
      ATLATL_PROMPT__OFFLOAD__TTL_SECONDS: String(TTL_SECONDS),
    };
    const options = { tokens: TOKENS.join(","), store: target, env };
    servers.push(await startHttpServer({ ...options, seed: 400 }));
    servers.push(await startHttpServer(options));
    const [a, b] = servers as [HttpServer, HttpServer];

    const names = await Promise.all(
      Array.from({ length: AGENTS }, async (_, i) => {
        const token = TOKENS[i % TOKENS.length] as string;
        const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
        return agent(await writer.connect({ token }), await reader.connect({ token }));
      }),
    );
    expect(new Set(names).size).toBe(AGENTS);

    // Swept once the TTL has passed: every file reported, by one instance only.
    const deadline = Date.now() + (TTL_SECONDS + 30) * 1000;
    const ours = () => expiredReports(servers).filter((n) => names.includes(n));
    while (new Set(ours()).size < AGENTS && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
    }
    // One more sweep interval on both: a second report would show up now.
    await new Promise((r) => setTimeout(r, (TTL_SECONDS / 2 + 1) * 1000));
    expect(ours().toSorted()).toEqual(names.toSorted());
  }, 180_000);
});
