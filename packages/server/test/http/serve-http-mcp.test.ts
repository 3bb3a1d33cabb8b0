import { existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { readWholeSet } from "@atlatl/lro/mcp";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { principalDir, tokenPrincipal } from "../../src/http/mcp/principals.js";
import { legacySession } from "./raw-request.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const TOKEN = "t0ken-alpha";
const OTHER = "t0ken-beta";

async function recall(client: Client, args: Record<string, unknown>) {
  return (await client.callTool({ name: "recall_memories", arguments: args })) as CallToolResult;
}
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

describe("atlatl serve --http: MCP over Streamable HTTP (SDK client, real process)", () => {
  let s: HttpServer;

  beforeAll(async () => {
    s = await startHttpServer({ tokens: `${TOKEN},${OTHER}`, seed: 600 });
  }, 60_000);
  afterAll(async () => {
    if (s) expect(await s.stop()).toBe(0);
  });

  it("lists the memory tools and lro_extract", async () => {
    const client = await s.connect();
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["recall_memories", "list_memories", "capture_memory", "lro_extract"]),
    );
  });

  it("offloads a broad recall into the token's directory; lro_extract and resources/read read it back", async () => {
    const client = await s.connect();
    // LRO judges the whole result set: all 600 matches are offloaded, not the page of 50.
    const result = await recall(client, { query: "", limit: 50, detail: "full", status: "any" });
    const descriptor = JSON.parse(text(result));
    expect(descriptor.offloaded).toBe(true);
    expect(descriptor.summary.count).toBe(600);
    expect(dirname(descriptor.file_path)).toBe(principalDir(s.outputDir, tokenPrincipal(TOKEN)));
    expect(descriptor.guidance).toContain("lro_extract");
    const lines = readFileSync(descriptor.file_path, "utf8").trim().split("\n");
    expect(lines).toHaveLength(601);

    const ids = (await client.callTool({
      name: "lro_extract",
      arguments: { file_path: descriptor.file_path, query: ".id", limit: 5 },
    })) as CallToolResult;
    expect(ids.isError).toBeFalsy();
    const firstIds = lines.slice(1, 6).map((l) => JSON.stringify(JSON.parse(l).id));
    expect(text(ids).trim().split("\n")).toEqual(firstIds);

    const link = result.content.find((c) => c.type === "resource_link") as { uri: string };
    const read = await client.readResource({ uri: link.uri });
    const body = (read.contents[0] as { text: string }).text;
    expect(body.trim().split("\n")).toEqual(lines);
    const listed = (await client.listResources()).resources.map((r) => r.uri);
    expect(listed).toContain(link.uri);
  });

  it("gives a clientInfo.proxy: true client every record inline, without a cursor", async () => {
    const proxy = await s.connect({ proxy: true, name: "atlatl-proxy" });
    const result = await recall(proxy, { query: "", limit: 1000, detail: "full", status: "any" });
    const body = JSON.parse(text(result));
    expect(body.offloaded).toBeUndefined();
    expect(body.count).toBe(600);
    expect(body.records).toHaveLength(600);
    expect(body.next_cursor ?? null).toBeNull();
    expect(result.content.some((c) => c.type === "resource_link")).toBe(false);
  });

  it("knows a raw 2025-11-25 client by clientInfo.proxy alone, sent at initialize", async () => {
    const recallOf = async (clientInfo: Record<string, unknown>) => {
      // No atlatl/proxy capability: only the specification's clientInfo flag, if any.
      const session = await legacySession(s.url, TOKEN, { clientInfo });
      try {
        const answer = await session.request("tools/call", {
          name: "recall_memories",
          arguments: { query: "", limit: 1000, detail: "full", status: "any" },
        });
        const result = answer.result as unknown as CallToolResult;
        return { body: JSON.parse(text(result)), whole: readWholeSet(result) };
      } finally {
        await session.end();
      }
    };
    const proxy = await recallOf({ name: "lro-proxy", version: "1", proxy: true });
    expect(proxy.body.offloaded).toBeUndefined();
    expect(proxy.body.records).toHaveLength(600);
    expect(proxy.whole?.set).toMatchObject({ operation: "recall", total: 600 });
    expect(proxy.whole?.set.records).toHaveLength(600);
    const plain = await recallOf({ name: "plain", version: "1" });
    expect(plain.body.offloaded).toBe(true);
    expect(plain.whole).toBeUndefined();
  });

  it("keeps two tokens' parallel sessions apart: B can neither list nor read A's offload file", async () => {
    const [a, b] = await Promise.all([s.connect(), s.connect({ token: OTHER })]);
    const [ra, rb] = await Promise.all([
      recall(a, { query: "", limit: 400, detail: "full" }),
      recall(b, { query: "", limit: 400, detail: "full" }),
    ]);
    const da = JSON.parse(text(ra));
    const db = JSON.parse(text(rb));
    expect(da.offloaded && db.offloaded).toBe(true);
    expect(dirname(da.file_path)).not.toBe(dirname(db.file_path));
    const uriA = (ra.content.find((c) => c.type === "resource_link") as { uri: string }).uri;

    const stolen = (await b.callTool({
      name: "lro_extract",
      arguments: { file_path: da.file_path, recipe: 1 },
    })) as CallToolResult;
    expect(stolen.isError).toBe(true);
    expect(text(stolen)).toMatch(/^FILE_NOT_FOUND: there is no offload file /);
    // The same shape as every other tool error (FILE_EXPIRED, INVALID_ARGUMENT, ...).
    expect(stolen.structuredContent).toEqual({
      error: { code: "FILE_NOT_FOUND", message: text(stolen).replace(/^FILE_NOT_FOUND: /, "") },
    });
    expect(text(stolen)).not.toContain(
      JSON.parse(readFileSync(da.file_path, "utf8").split("\n")[1] as string).title,
    );
    const byName = (await b.callTool({
      name: "lro_extract",
      arguments: { file_path: uriA, recipe: 1 },
    })) as CallToolResult;
    expect(byName.isError).toBe(true);
    expect(text(byName)).toBe(text(stolen));
    await expect(b.readResource({ uri: uriA })).rejects.toThrow(
      /FILE_NOT_FOUND: there is no offload file/,
    );
    expect((await b.listResources()).resources.map((r) => r.uri)).not.toContain(uriA);
    // A still reads its own.
    expect((await a.readResource({ uri: uriA })).contents).toHaveLength(1);
  });

  it("shares a token's offload files between its parallel sessions", async () => {
    const [a1, a2] = await Promise.all([s.connect(), s.connect()]);
    const r1 = await recall(a1, { query: "", limit: 400, detail: "full" });
    const d1 = JSON.parse(text(r1));
    expect(d1.offloaded).toBe(true);
    const uri = (r1.content.find((c) => c.type === "resource_link") as { uri: string }).uri;
    expect((await a2.listResources()).resources.map((r) => r.uri)).toContain(uri);
    const read = await a2.readResource({ uri });
    expect((read.contents[0] as { text: string }).text).toBe(readFileSync(d1.file_path, "utf8"));
    const ids = (await a2.callTool({
      name: "lro_extract",
      arguments: { file_path: d1.file_path, query: ".id", limit: 1 },
    })) as CallToolResult;
    expect(ids.isError).toBeFalsy();
    const first = JSON.parse(readFileSync(d1.file_path, "utf8").split("\n")[1] as string).id;
    expect(text(ids)).toBe(`${JSON.stringify(first)}\n`);
  });

  it("refuses a session id presented with another token", async () => {
    const a = await s.connect();
    const sessionId = (a.transport as StreamableHTTPClientTransport).sessionId as string;
    const res = await fetch(`${s.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${OTHER}`,
        "mcp-session-id": sessionId,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(404);
  });

  it("ends a session on DELETE and keeps its token's offload files for their TTL", async () => {
    const a = await s.connect();
    const r = await recall(a, { query: "", limit: 300, detail: "full" });
    const d = JSON.parse(text(r));
    const uri = (r.content.find((c) => c.type === "resource_link") as { uri: string }).uri;
    expect(existsSync(d.file_path)).toBe(true);
    const transport = a.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId as string;
    await transport.terminateSession();
    const after = await fetch(`${s.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "mcp-session-id": sessionId,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(after.status).toBe(404);
    // A later session of the token reads it (the ended one's teardown has run by then).
    const later = await s.connect();
    const read = await later.readResource({ uri });
    expect((read.contents[0] as { text: string }).text).toBe(readFileSync(d.file_path, "utf8"));
    expect(existsSync(d.file_path)).toBe(true);
    const metrics = await (
      await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).text();
    expect(metrics).toMatch(/atlatl_offloads_total\{outcome="created"\} [1-9]/);
    expect(metrics).toMatch(/atlatl_mcp_sessions_active \d+/);
  });

  it("offers the two prompts, with completion of their arguments", async () => {
    const client = await s.connect();
    const names = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(["recall_and_summarize", "context_for_task"]));
    const prompt = await client.getPrompt({
      name: "recall_and_summarize",
      arguments: { query: "incident" },
    });
    const msg = prompt.messages[0]?.content as { type: string; text: string };
    expect(msg.text).toMatch(/^Summarize what these memories say about "incident"/);
    expect(msg.text).toMatch(/incident/i);
    const task = await client.getPrompt({
      name: "context_for_task",
      arguments: { task: "fix the auth gateway" },
    });
    const taskMsg = task.messages[0]?.content as { text: string } | undefined;
    expect(taskMsg?.text).toContain("fix the auth gateway");
    const done = await client.complete({
      ref: { type: "ref/prompt", name: "recall_and_summarize" },
      argument: { name: "namespace", value: "_sem" },
    });
    expect(done.completion.values.length).toBeGreaterThan(0);
    expect(done.completion.values.every((v) => v.startsWith("_sem"))).toBe(true);
  });

  it("sends LRO events as notifications/message at the level the client set, only its token's", async () => {
    const [a, b] = await Promise.all([s.connect(), s.connect({ token: OTHER })]);
    const seenA: { level: string; data: { type: string; path: string } }[] = [];
    const seenB: unknown[] = [];
    a.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      seenA.push(n.params as never);
    });
    b.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      seenB.push(n.params);
    });
    await a.setLoggingLevel("info");
    await b.setLoggingLevel("info");
    const d = JSON.parse(text(await recall(a, { query: "", limit: 300, detail: "full" })));
    await expect.poll(() => seenA.length).toBeGreaterThan(0);
    expect(seenA[0]?.level).toBe("info");
    expect(seenA[0]?.data.type).toBe("OffloadCreated");
    expect(seenA[0]?.data.path).toBe(d.file_path);
    expect(seenB).toEqual([]);
    await a.setLoggingLevel("error");
    await recall(a, { query: "", limit: 300, detail: "full" });
    await recall(a, { query: "x", limit: 1 });
    expect(seenA).toHaveLength(1);
  });

  it("reports progress on a read tool as the store does the work, when the client sends a progress token", async () => {
    const client = await s.connect();
    for (const [args, offloaded] of [
      [{ query: "", limit: 300, detail: "full" }, true],
      [{ query: "", limit: 5, detail: "light", namespace: "_episodic/incidents/dynamo" }, false],
    ] as const) {
      const seen: { progress: number; total?: number; message?: string }[] = [];
      const result = (await client.callTool(
        { name: "recall_memories", arguments: args },
        CallToolResultSchema,
        { onprogress: (p) => void seen.push(p) },
      )) as CallToolResult;
      const body = JSON.parse(text(result)) as {
        offloaded?: boolean;
        total?: number;
        summary?: { count: number };
      };
      expect(body.offloaded === true).toBe(offloaded);
      // What the store returned, as the response counts it.
      const matches = offloaded ? body.summary?.count : body.total;
      expect(typeof matches, JSON.stringify(body).slice(0, 300)).toBe("number");
      expect(matches).toBeGreaterThan(0);
      const messages = seen.map((p) => p.message);
      expect(messages[0]).toBe("querying the memory store");
      expect(messages).toContain(`the store returned ${matches} matches`);
      // Every match was read before the store's count was reported, and nothing after "done".
      const hitReports = messages.filter((m) => m?.startsWith("read "));
      expect(hitReports).toEqual(
        Array.from(
          { length: Math.floor((matches ?? 0) / 1000) },
          (_, i) => `read ${(i + 1) * 1000} matches from the store so far`,
        ),
      );
      expect(messages.at(-1)).toBe("done");
      expect(seen.map((p) => p.progress)).toEqual(seen.map((_, i) => i + 1));
      expect(seen.at(-1)?.total).toBe(seen.length);
      // The number of steps is known only at the end: "done" alone carries a total (docs/remote.md).
      expect(seen.slice(0, -1).filter((p) => p.total !== undefined)).toEqual([]);
    }
  });

  it("runs recall_memories as an MCP Task (taskSupport optional): the task's result carries the descriptor", async () => {
    const client = await s.connect();
    const tools = (await client.listTools()).tools;
    for (const name of ["recall_memories", "inject_context"]) {
      expect(tools.find((t) => t.name === name)?.execution?.taskSupport).toBe("optional");
    }
    expect(tools.find((t) => t.name === "capture_memory")?.execution?.taskSupport).not.toBe(
      "optional",
    );
    const created = await client.request(
      {
        method: "tools/call",
        params: {
          name: "recall_memories",
          arguments: { query: "", limit: 300, detail: "full" },
          task: { ttl: 60_000 },
        },
      },
      CreateTaskResultSchema,
    );
    // Answered before the recall runs; tasks/result waits for its end.
    expect(created.task.status).toBe("working");
    expect(created.task.ttl).toBe(60_000);
    const result = await client.request(
      { method: "tasks/result", params: { taskId: created.task.taskId } },
      CallToolResultSchema,
    );
    const descriptor = JSON.parse(text(result as CallToolResult));
    expect(descriptor.offloaded).toBe(true);
    expect(existsSync(descriptor.file_path)).toBe(true);
    expect(result.content.some((c) => c.type === "resource_link")).toBe(true);
  });

  it("keeps a task with its principal: the token's next session reads it, another token cannot", async () => {
    const first = await s.connect({ token: TOKEN });
    const created = await first.request(
      {
        method: "tools/call",
        params: {
          name: "recall_memories",
          arguments: { query: "", limit: 300, detail: "full" },
          task: { ttl: 60_000 },
        },
      },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    await (first.transport as StreamableHTTPClientTransport).terminateSession();
    const later = await s.connect({ token: TOKEN });
    const result = await later.request(
      { method: "tasks/result", params: { taskId } },
      CallToolResultSchema,
    );
    expect(JSON.parse(text(result as CallToolResult)).offloaded).toBe(true);
    const other = await s.connect({ token: OTHER });
    await expect(
      other.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema),
    ).rejects.toThrow(/-32602/);
  });
});
