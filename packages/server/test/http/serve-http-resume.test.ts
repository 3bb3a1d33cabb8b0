import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const TOKEN = "resume-token";
const VERSION = "2025-11-25";

/** SSE events of a finished stream: id and data. */
function events(text: string): { id?: string; data: string }[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = /^data: ?(.*)$/m.exec(block)?.[1] ?? "";
      return id === undefined ? { data } : { id, data };
    });
}

describe("atlatl serve --http: resumable SSE streams (event store)", () => {
  let s: HttpServer;
  const base = () => ({
    authorization: `Bearer ${TOKEN}`,
    accept: "application/json, text/event-stream",
    "content-type": "application/json",
  });
  beforeAll(async () => {
    s = await startHttpServer({ tokens: TOKEN, seed: 20 });
  }, 60_000);
  afterAll(async () => {
    if (s) await s.stop();
  });

  it("replays a tool result after the client's Last-Event-ID", async () => {
    const init = await fetch(`${s.url}/mcp`, {
      method: "POST",
      headers: base(),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: VERSION,
          capabilities: {},
          clientInfo: { name: "r", version: "1" },
        },
      }),
    });
    await init.text();
    const session = init.headers.get("mcp-session-id") as string;
    expect(session).toBeTruthy();
    const headers = { ...base(), "mcp-session-id": session, "mcp-protocol-version": VERSION };
    await fetch(`${s.url}/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    }).then((r) => r.text());

    const call = await fetch(`${s.url}/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "list_memories", arguments: { limit: 3 } },
      }),
    });
    const sent = events(await call.text());
    const priming = sent[0];
    const response = sent.find((e) => e.data.includes('"id":2'));
    expect(priming?.id).toBeTruthy();
    expect(response?.id).toBeTruthy();

    // The client lost the stream after the priming event: it resumes from there.
    const ac = new AbortController();
    const resumed = await fetch(`${s.url}/mcp`, {
      method: "GET",
      headers: { ...headers, "last-event-id": priming?.id as string },
      signal: ac.signal,
    });
    expect(resumed.status).toBe(200);
    const reader = (resumed.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    const decoder = new TextDecoder();
    while (!text.includes('"id":2')) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    ac.abort();
    const replayed = events(text).find((e) => e.data.includes('"id":2'));
    expect(replayed).toEqual(response);
  });
});
