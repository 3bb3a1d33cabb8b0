/**
 * A 2026-07-28 client over raw HTTP (issue 21, "Done when", first bullet, and
 * the protocol points of the revision): no `initialize`, no session; every
 * request carries its own `_meta` envelope and the `MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name` headers. State across calls is the offload handle
 * (file path, `atlatl://offload/` URI), owned by the token's principal. A real
 * `atlatl serve --http` process with two tokens.
 */
import { readFileSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATLATL_TOOLS } from "../mcp/tool-names.js";
import {
  envelope,
  MCP_HEADERS,
  MODERN,
  type ModernResponse,
  modern,
  raw,
  sseText,
} from "./raw-request.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const A = "modern-token-a";
const B = "modern-token-b";
const C = "modern-token-c";
const TTL_SECONDS = 600;
const broad = { query: "", limit: 300, detail: "full" };

const text = (r: ModernResponse) => r.message.result?.content?.[0]?.text as string;
const ok = (r: ModernResponse) => {
  expect(r.status, r.body).toBe(200);
  expect(r.message.error, r.body).toBeUndefined();
  // 2026-07-28 has no sessions: the server never hands one out.
  expect(r.headers["mcp-session-id"]).toBeUndefined();
  return r.message.result as Record<string, unknown>;
};
/** The JSON-RPC error of a refused request, with its HTTP status. */
const refusal = (r: ModernResponse) => ({ status: r.status, code: r.message.error?.code });

describe("atlatl serve --http: a 2026-07-28 client over raw HTTP", () => {
  let s: HttpServer;
  beforeAll(async () => {
    s = await startHttpServer({
      tokens: `${A},${B}`,
      seed: 600,
      args: ["--ttl", String(TTL_SECONDS)],
    });
  }, 60_000);
  afterAll(async () => {
    if (s) expect(await s.stop()).toBe(0);
  });

  /** A broad recall of `token`, offloaded: its file path and resource URI. */
  async function offload(token: string): Promise<{ path: string; uri: string }> {
    const r = await modern(
      s.url,
      "tools/call",
      { name: "recall_memories", arguments: broad },
      { token },
    );
    const result = ok(r);
    expect(result.resultType).toBe("complete");
    const descriptor = JSON.parse(text(r));
    expect(descriptor.offloaded, text(r)).toBe(true);
    const link = r.message.result?.content?.find((c) => c.type === "resource_link");
    expect(link?.uri).toMatch(/^atlatl:\/\/offload\//);
    return { path: descriptor.file_path, uri: link?.uri as string };
  }

  it("lists tools, offloads a broad recall and reads it back in later independent requests; another token gets not-found", async () => {
    const tools = ok(await modern(s.url, "tools/list", {}, { token: A }));
    expect((tools.tools as { name: string }[]).map((t) => t.name)).toEqual(ATLATL_TOOLS);

    const { path, uri } = await offload(A);
    const lines = readFileSync(path, "utf8").split("\n");
    const want = lines
      .slice(1, 3)
      .map((l) => `${JSON.stringify(JSON.parse(l).id)}\n`)
      .join("");

    // Later requests, each on its own: by path, by file name, by URI.
    for (const file_path of [path, basename(path), uri]) {
      const r = await modern(
        s.url,
        "tools/call",
        { name: "lro_extract", arguments: { file_path, query: ".id", limit: 2 } },
        { token: A },
      );
      const result = ok(r);
      expect(result.isError, text(r)).toBeFalsy();
      expect(text(r)).toBe(want);
    }
    const read = ok(await modern(s.url, "resources/read", { uri }, { token: A }));
    expect((read.contents as { text: string }[])[0]?.text).toBe(readFileSync(path, "utf8"));
    const listed = ok(await modern(s.url, "resources/list", {}, { token: A }));
    expect((listed.resources as { uri: string }[]).map((r) => r.uri)).toContain(uri);

    // Token B, with a file of its own (its directory exists): A's handles name nothing it owns.
    const own = await offload(B);
    expect(dirname(own.path)).not.toBe(dirname(path));
    const name = basename(path);
    for (const file_path of [path, name, uri]) {
      const r = await modern(
        s.url,
        "tools/call",
        { name: "lro_extract", arguments: { file_path, query: ".id" } },
        { token: B },
      );
      const result = ok(r);
      expect(result.isError).toBe(true);
      expect(text(r).startsWith(`FILE_NOT_FOUND: there is no offload file ${name}.`), text(r)).toBe(
        true,
      );
      expect(result.structuredContent).toMatchObject({ error: { code: "FILE_NOT_FOUND" } });
    }
    const foreign = await modern(s.url, "resources/read", { uri }, { token: B });
    expect(foreign.message.error?.code).toBe(-32602);
    expect(foreign.message.error?.message).toContain(
      `FILE_NOT_FOUND: there is no offload file ${name}`,
    );
    const listedB = ok(await modern(s.url, "resources/list", {}, { token: B }));
    expect((listedB.resources as { uri: string }[]).map((r) => r.uri)).not.toContain(uri);
  });

  it("sends log notifications only for a request that carries a log level", async () => {
    const logged = await modern(
      s.url,
      "tools/call",
      {
        name: "recall_memories",
        arguments: broad,
        _meta: { "io.modelcontextprotocol/logLevel": "info" },
      },
      { token: A },
    );
    expect(JSON.parse(text(logged)).offloaded).toBe(true);
    expect(logged.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(logged.body).toMatch(/"method":"notifications\/message".*"type":"OffloadCreated"/);

    const quiet = await modern(
      s.url,
      "tools/call",
      { name: "recall_memories", arguments: broad },
      { token: A },
    );
    expect(JSON.parse(text(quiet)).offloaded).toBe(true);
    expect(quiet.body).not.toContain("notifications/message");
  });

  it("answers server/discover with the revision, capabilities, server info and cache fields", async () => {
    const d = ok(await modern(s.url, "server/discover", {}, { token: A }));
    expect(d.supportedVersions).toContain(MODERN);
    expect(d.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    expect(d.resultType).toBe("complete");
    expect(typeof d.ttlMs).toBe("number");
    expect(["public", "private"]).toContain(d.cacheScope);
    expect(d._meta).toMatchObject({
      "io.modelcontextprotocol/serverInfo": { name: "atlatl", version: expect.any(String) },
    });
    expect(typeof d.instructions).toBe("string");
  });

  it("puts ttlMs and cacheScope on list and read results; an offload file's read lives no longer than the file, private", async () => {
    for (const method of [
      "tools/list",
      "prompts/list",
      "resources/list",
      "resources/templates/list",
    ]) {
      const r = ok(await modern(s.url, method, {}, { token: A }));
      expect(r.resultType, method).toBe("complete");
      expect(r.ttlMs, method).toEqual(expect.any(Number));
      expect(r.ttlMs as number, method).toBeGreaterThanOrEqual(0);
      expect(["public", "private"], method).toContain(r.cacheScope);
    }
    // What a principal lists is its own.
    for (const method of ["resources/list", "resources/templates/list"]) {
      expect(ok(await modern(s.url, method, {}, { token: A })).cacheScope, method).toBe("private");
    }
    const { path, uri } = await offload(A);
    const read = ok(await modern(s.url, "resources/read", { uri }, { token: A }));
    const remaining = statSync(path).mtimeMs + TTL_SECONDS * 1000 - Date.now();
    expect(read.cacheScope).toBe("private");
    expect(read.ttlMs as number).toBeGreaterThan(0);
    expect(read.ttlMs as number).toBeLessThanOrEqual(Math.ceil(remaining) + 1000);
    expect(read.ttlMs as number).toBeGreaterThan(remaining - 60_000);
  });

  it("refuses a request whose headers disagree with its body: 400, HeaderMismatch -32020", async () => {
    const missing = await modern(
      s.url,
      "tools/list",
      {},
      { token: A, headers: { "mcp-method": "" } },
    );
    expect(refusal(missing)).toEqual({ status: 400, code: -32020 });
    const wrongName = await modern(
      s.url,
      "tools/call",
      { name: "list_memories", arguments: { limit: 1 } },
      { token: A, headers: { "mcp-name": "forget_memory" } },
    );
    expect(refusal(wrongName)).toEqual({ status: 400, code: -32020 });
    const wrongMethod = await modern(
      s.url,
      "tools/list",
      {},
      { token: A, headers: { "mcp-method": "prompts/list" } },
    );
    expect(refusal(wrongMethod)).toEqual({ status: 400, code: -32020 });
    // Nothing happened: the right headers are served.
    const called = await modern(
      s.url,
      "tools/call",
      { name: "list_memories", arguments: { limit: 1 } },
      { token: A },
    );
    expect(ok(called).isError).toBeFalsy();
  });

  it("refuses an unknown protocol version with -32022 naming the supported ones", async () => {
    const r = await modern(s.url, "tools/list", {}, { token: A, version: "2099-01-01" });
    expect(refusal(r)).toEqual({ status: 400, code: -32022 });
    expect(r.message.error?.data).toMatchObject({
      requested: "2099-01-01",
      supported: expect.arrayContaining([MODERN]),
    });
  });

  it("refuses subscriptions/listen for taskIds without the tasks extension: -32021 (SEP-2663)", async () => {
    const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };
    const listen = { notifications: { taskIds: ["t-1"] } };
    const r = await modern(s.url, "subscriptions/listen", listen, { token: A });
    expect(refusal(r)).toEqual({ status: 400, code: -32021 });
    expect(r.message.error?.data).toEqual({ requiredCapabilities: TASKS });
    expect(r.message.error?.message).toContain("io.modelcontextprotocol/tasks");
    // Declared: acknowledged (with what the server honours), and the stream ends.
    const declared = await modern(s.url, "subscriptions/listen", listen, {
      token: A,
      capabilities: TASKS,
    });
    expect(declared.status).toBe(200);
    expect(declared.body).toContain("notifications/subscriptions/acknowledged");
    expect(declared.message.error).toBeUndefined();
  });

  it("answers resources/read of a missing resource with -32602", async () => {
    for (const uri of [
      "atlatl://offload/lro-recall_memories-01KAAAAAAAAAAAAAAAAAAAAAAA.jsonl",
      "test://nonexistent",
    ]) {
      const r = await modern(s.url, "resources/read", { uri }, { token: A });
      expect(r.message.error?.code, uri).toBe(-32602);
    }
  });

  it("has no ping and no logging/setLevel on 2026-07-28: -32601", async () => {
    for (const [method, params] of [
      ["ping", {}],
      ["logging/setLevel", { level: "debug" }],
    ] as const) {
      const r = await modern(s.url, method, params, { token: A });
      expect(r.message.error?.code, method).toBe(-32601);
    }
  });

  it("opens no GET stream without a session", async () => {
    const get = await raw(s.url, "/mcp", {
      headers: {
        accept: "text/event-stream",
        authorization: `Bearer ${A}`,
        "mcp-protocol-version": MODERN,
      },
    });
    expect(get.status).toBeGreaterThanOrEqual(400);
    expect(get.status).toBeLessThan(500);
    expect(get.headers["content-type"]).not.toMatch(/event-stream/);
  });

  it("answers a body that is not JSON with a parse error (-32700)", async () => {
    const bad = await raw(s.url, "/mcp", {
      method: "POST",
      headers: { ...MCP_HEADERS, authorization: `Bearer ${A}`, "mcp-protocol-version": MODERN },
      body: "{",
    });
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: -32700 } });
  });
});

describe("atlatl serve --http: 2026-07-28 listeners hold no request slot, and are bounded per token", () => {
  let s: HttpServer;
  beforeAll(async () => {
    s = await startHttpServer({
      // C's own: a listener the other test aborted may still count for A until the server sees it end.
      tokens: `${A},${B},${C}`,
      env: {
        ATLATL_SERVER__HTTP__MAX_CONCURRENT: "1",
        ATLATL_SERVER__HTTP__MAX_SESSIONS_PER_TOKEN: "2",
      },
    });
  }, 60_000);

  /** Open a `subscriptions/listen` stream of `token`; the text read until `until` (or the end). */
  async function listen(
    token: string,
    until: string,
  ): Promise<{ seen: string; close: () => void }> {
    const ac = new AbortController();
    const res = await fetch(`${s.url}/mcp`, {
      method: "POST",
      signal: ac.signal,
      headers: {
        ...MCP_HEADERS,
        "content-type": "application/json",
        authorization: `Bearer ${token}`,
        "mcp-protocol-version": MODERN,
        "mcp-method": "subscriptions/listen",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "listen-1",
        method: "subscriptions/listen",
        params: { notifications: { resourcesListChanged: true }, _meta: envelope() },
      }),
    });
    expect(res.status).toBe(200);
    const seen = await sseText(res.body as ReadableStream<Uint8Array>).until(until);
    return { seen, close: () => ac.abort() };
  }

  it("refuses a token's listener past max_sessions_per_token, and not another token's", async () => {
    const ack = "notifications/subscriptions/acknowledged";
    const open = [await listen(A, ack), await listen(A, ack)];
    try {
      for (const l of open) expect(l.seen).toContain(ack);
      const third = await listen(A, '"error"');
      expect(third.seen).toMatch(/"code":-32603/);
      expect(third.seen).toContain("Subscription limit reached");
      expect(third.seen).not.toContain(ack);
      third.close();
      const other = await listen(B, ack);
      expect(other.seen).toContain(ack);
      other.close();
    } finally {
      for (const l of open) l.close();
    }
  });
  afterAll(async () => {
    if (s) expect(await s.stop()).toBe(0);
  });

  it("serves the token's requests while its subscriptions/listen stream stays open (max_concurrent = 1)", async () => {
    // The stream is open once the server acknowledged the subscription.
    const open = await listen(C, "notifications/subscriptions/acknowledged");
    expect(open.seen).toContain("notifications/subscriptions/acknowledged");
    try {
      for (let i = 0; i < 3; i++) {
        const r = await modern(s.url, "tools/list", {}, { token: C });
        expect(r.status, r.body).toBe(200);
      }
    } finally {
      open.close();
    }
  });
});
