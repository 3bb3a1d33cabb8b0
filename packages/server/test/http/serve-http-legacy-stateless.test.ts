/**
 * What a 2025-11-25 client keeps and loses with `[server.http] legacy_sessions
 * = false` (each request on a fresh server, no session), beside an instance
 * with sessions (the default), as docs/remote.md says: it keeps tool calls
 * with their own progress and log notifications and 2025 MCP Tasks on the
 * instance; it loses what `initialize` and `logging/setLevel` declared (the
 * LRO proxy signal, the log level), which no later request's server heard.
 * SDK 1.x clients against real `atlatl serve --http` processes.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallToolResult,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const TOKEN = "legacy-stateless-token";
const broad = { query: "", limit: 400, detail: "full" };
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

/** The `atlatl.lro` log notifications a client hears during `work`. */
async function lroLogs(client: Client, work: () => Promise<unknown>): Promise<string[]> {
  const heard: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    if (n.params.logger === "atlatl.lro") heard.push(n.params.level);
  });
  await work();
  return heard;
}

describe("atlatl serve --http, legacy_sessions = false: what a 2025-11-25 client keeps and loses", () => {
  let stateless: HttpServer;
  let sessions: HttpServer;
  beforeAll(async () => {
    [stateless, sessions] = await Promise.all([
      startHttpServer({
        tokens: TOKEN,
        seed: 500,
        env: { ATLATL_SERVER__HTTP__LEGACY_SESSIONS: "false" },
      }),
      startHttpServer({ tokens: TOKEN, seed: 500 }),
    ]);
  }, 60_000);
  afterAll(async () => {
    if (stateless) expect(await stateless.stop()).toBe(0);
    if (sessions) expect(await sessions.stop()).toBe(0);
  });

  it("has no session: the client holds no Mcp-Session-Id", async () => {
    const client = await stateless.connect();
    expect(client.transport?.sessionId).toBeUndefined();
    expect((await sessions.connect()).transport?.sessionId).toEqual(expect.any(String));
  });

  it("keeps a call's own log notifications, but logging/setLevel is not remembered", async () => {
    const call = (c: Client) => () => c.callTool({ name: "recall_memories", arguments: broad });
    // Unset level: both send the offload's info notice on the call's own response.
    const plain = await stateless.connect();
    expect(await lroLogs(plain, call(plain))).toContain("info");
    // setLevel is answered, but the next request's fresh server never heard it.
    const quiet = await stateless.connect();
    await quiet.setLoggingLevel("emergency");
    expect(await lroLogs(quiet, call(quiet))).toContain("info");
    const session = await sessions.connect();
    await session.setLoggingLevel("emergency");
    expect(await lroLogs(session, call(session))).toEqual([]);
  });

  it("loses the LRO proxy signal of initialize: a proxy client gets the descriptor, not the records", async () => {
    const recall = async (s: HttpServer) => {
      const proxy = await s.connect({ proxy: true, name: "atlatl-proxy" });
      return JSON.parse(
        text(
          (await proxy.callTool({ name: "recall_memories", arguments: broad })) as CallToolResult,
        ),
      );
    };
    const inSession = await recall(sessions);
    expect(inSession.offloaded).toBeUndefined();
    expect(inSession.records).toHaveLength(400);
    expect((await recall(stateless)).offloaded).toBe(true);
  });

  it("keeps 2025-11-25 MCP Tasks: a task-augmented call, then tasks/get on another request", async () => {
    const client = await stateless.connect();
    const created = await client.request(
      {
        method: "tools/call",
        params: { name: "recall_memories", arguments: broad, task: { ttl: 60_000 } },
      },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    let status = created.task.status;
    const end = Date.now() + 30_000;
    while (status === "working" && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
      status = (
        await client.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema)
      ).status;
    }
    expect(status).toBe("completed");
  });
});
