/**
 * Client input across protocol generations (issue 21, item 4; docs/proxy.md
 * "Protocol generations"): elicitation and sampling asked by a 2025 upstream
 * as server→client requests reach a 2026-07-28 client as `input_required`
 * results and come back on its retry; asked by a 2026 upstream as
 * `input_required` they reach a 2025 client as server→client requests; 2026
 * on both sides passes through. What cannot be said across is refused with a
 * coded error, one test each.
 */
import { join } from "node:path";
import { ElicitRequestSchema, ListTasksResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EVERYTHING,
  envelope,
  FIXTURES,
  MODERN,
  type Peer,
  type Peer2,
  proxied,
  proxied2,
  type RawResponse,
  rawProxied,
  tempDir,
} from "./helpers.js";

const FAULTY = join(FIXTURES, "faulty-server.mjs");
const PIN = { pin: "2026-07-28" } as const;
const out = tempDir("atlatl-proxy-input-");
const args = ["--output-dir", out.dir];

afterAll(() => out.remove());

const textOf = (r: { content?: unknown } | { [key: string]: unknown }) =>
  (r.content as { text: string }[])[0]?.text as string;

/** The text of a raw tools/call response's first content block (it must be a result). */
function rawText(response: RawResponse): string {
  if (!response.result) throw new Error(`expected a result: ${JSON.stringify(response)}`);
  return (response.result.content as { text: string }[])[0]?.text as string;
}

/** What each test client answered, in order. */
const asked: string[] = [];

/** A 2.x client that answers elicitation and sampling (and roots), noting each question. */
function answering2(client: Peer2["client"]): void {
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(`elicit: ${request.params.message}`);
    return { action: "accept", content: { name: "Ada Lovelace", check: true } };
  });
  client.setRequestHandler("sampling/createMessage", async (request) => {
    const first = request.params.messages[0]?.content as { text?: string };
    asked.push(`sample: ${first.text}`);
    return {
      role: "assistant",
      model: "test-model",
      content: { type: "text", text: "sampled answer 42" },
    };
  });
  client.setRequestHandler("roots/list", async () => {
    asked.push("roots");
    return { roots: [{ uri: "file:///work", name: "work" }] };
  });
}

describe("a 2026-07-28 client, its input asked by a 2025-11-25 upstream", () => {
  let p: Peer2;
  let f: Peer2;
  beforeAll(async () => {
    [p, f] = await Promise.all([
      proxied2([EVERYTHING, "stdio"], args, PIN, answering2),
      proxied2([FAULTY], args, PIN, answering2),
    ]);
  });
  afterAll(async () => {
    await Promise.all([p?.close(), f?.close()]);
  });

  it("answers the upstream's elicitation through input_required and the retry", async () => {
    asked.length = 0;
    const r = await p.client.callTool({ name: "trigger-elicitation-request", arguments: {} });
    expect(JSON.stringify(r.content)).toContain("Ada Lovelace");
    expect(asked.filter((a) => a.startsWith("elicit"))).toHaveLength(1);
  });

  it("answers the upstream's sampling through input_required and the retry", async () => {
    asked.length = 0;
    const r = await p.client.callTool({
      name: "trigger-sampling-request",
      arguments: { prompt: "What is 6 x 7?", maxTokens: 20 },
    });
    expect(JSON.stringify(r.content)).toContain("sampled answer 42");
    expect(
      asked.filter((a) => a.startsWith("sample:") && a.includes("What is 6 x 7?")),
    ).toHaveLength(1);
  });

  it("answers the upstream's roots/list through input_required and the retry", async () => {
    const r = await f.client.callTool({ name: "roots-now", arguments: {} });
    expect(JSON.parse(textOf(r))).toEqual([{ uri: "file:///work", name: "work" }]);
  });

  it("keeps a result that came while its question was out for the retry, and the answer reaches the upstream", async () => {
    asked.length = 0;
    const r = await f.client.callTool({ name: "ask-aside", arguments: {} });
    expect(textOf(r)).toBe("answered at once");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const last = JSON.parse(textOf(await f.client.callTool({ name: "last-ask", arguments: {} })));
    expect(last.answer).toEqual({
      action: "accept",
      content: { name: "Ada Lovelace", check: true },
    });
    expect(asked).toEqual(["elicit: Your name?"]);
  });

  it("returns the raw input_required result to a client that handles it itself", async () => {
    const raw = rawProxied([FAULTY], args);
    try {
      const meta = envelope({ elicitation: { form: {} } });
      await raw.request("server/discover", { _meta: meta });
      const first = await raw.request("tools/call", {
        name: "ask-now",
        arguments: {},
        _meta: meta,
      });
      expect(first.result?.resultType).toBe("input_required");
      const requests = first.result?.inputRequests as Record<string, { method: string }>;
      const [key, question] = Object.entries(requests)[0] as [string, { method: string }];
      expect(question.method).toBe("elicitation/create");
      const retry = await raw.request("tools/call", {
        name: "ask-now",
        arguments: {},
        _meta: meta,
        inputResponses: { [key]: { action: "accept", content: { name: "Grace" } } },
        requestState: first.result?.requestState,
      });
      const text = rawText(retry);
      expect(JSON.parse(text).answer).toEqual({ action: "accept", content: { name: "Grace" } });
    } finally {
      raw.close();
    }
  });

  it("refuses a requestState on a request other than the one it was minted for, and the right retry still works", async () => {
    const raw = rawProxied([FAULTY], args);
    try {
      const meta = envelope({ elicitation: { form: {} } });
      await raw.request("server/discover", { _meta: meta });
      const first = await raw.request("tools/call", {
        name: "ask-now",
        arguments: { topic: "a" },
        _meta: meta,
      });
      expect(first.result?.resultType).toBe("input_required");
      const [key] = Object.keys(first.result?.inputRequests as object);
      const answers = { [key as string]: { action: "accept", content: { name: "Grace" } } };
      const continuing = {
        _meta: meta,
        inputResponses: answers,
        requestState: first.result?.requestState,
      };
      // Another tool, the same tool with other arguments: each refused, nothing answered.
      for (const other of [
        { name: "echo", arguments: { topic: "a" } },
        { name: "ask-now", arguments: { topic: "b" } },
      ]) {
        const wrong = await raw.request("tools/call", { ...other, ...continuing });
        expect(wrong.result, JSON.stringify(wrong)).toBeUndefined();
        expect(wrong.error?.code).toBe(-32602);
        expect(wrong.error?.message).toContain("requestState was issued for another request");
        expect(wrong.error?.data).toEqual({ code: "REQUEST_STATE_MISMATCH" });
      }
      // The same name and arguments, keys in any order: the parked call goes on.
      const retry = await raw.request("tools/call", {
        arguments: { topic: "a" },
        name: "ask-now",
        ...continuing,
      });
      expect(JSON.parse(rawText(retry)).answer).toEqual({
        action: "accept",
        content: { name: "Grace" },
      });
    } finally {
      raw.close();
    }
  });

  it("refuses a question tied to no call in progress (-32601, said to the upstream)", async () => {
    await f.client.callTool({ name: "ask-after", arguments: {} });
    await new Promise((r) => setTimeout(r, 500));
    const last = JSON.parse(textOf(await f.client.callTool({ name: "last-ask", arguments: {} })));
    expect(last.code).toBe(-32601);
    expect(last.message).toContain("only within a tools/call, prompts/get or resources/read");
  });

  it("refuses a question it cannot tie to one of several calls in progress", async () => {
    const controller = new AbortController();
    const hang = f.client
      .callTool({ name: "hang", arguments: {} }, { signal: controller.signal })
      .catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    const r = JSON.parse(textOf(await f.client.callTool({ name: "ask-now", arguments: {} })));
    controller.abort();
    await hang;
    expect(r.code).toBe(-32601);
    expect(r.message).toContain("2 calls are in progress");
  });

  it("refuses a question the client's request did not declare it can answer", async () => {
    const raw = rawProxied([FAULTY], args);
    try {
      // The session opened declaring elicitation (so the upstream may ask); this call does not.
      await raw.request("server/discover", { _meta: envelope({ elicitation: { form: {} } }) });
      const r = await raw.request("tools/call", {
        name: "ask-now",
        arguments: {},
        _meta: envelope({}),
      });
      const text = rawText(r);
      expect(JSON.parse(text)).toMatchObject({ code: -32601 });
      expect(JSON.parse(text).message).toContain("did not declare the elicitation capability");
    } finally {
      raw.close();
    }
  });

  it("refuses a forged requestState (-32602), and resources/subscribe, which 2026 lacks", async () => {
    const raw = rawProxied([EVERYTHING, "stdio"], args);
    try {
      const meta = envelope();
      await raw.request("server/discover", { _meta: meta });
      const forged = await raw.request("tools/call", {
        name: "echo",
        arguments: { message: "x" },
        _meta: meta,
        inputResponses: {},
        requestState: "v1.forged.state",
      });
      expect(forged.error?.code).toBe(-32602);
      const subscribe = await raw.request("resources/subscribe", {
        uri: "demo://resource/static/document/architecture.md",
        _meta: meta,
      });
      expect(subscribe.error?.code).toBe(-32601);
    } finally {
      raw.close();
    }
  });
});

describe("a 2026-07-28 client, a 2025-11-25 upstream asking roots/list at start-up", () => {
  it("asks the client at its first call and tells an upstream that gave up roots/list_changed", async () => {
    let rootsAsked = 0;
    const p = await proxied2(
      [FAULTY],
      args,
      PIN,
      (client) =>
        client.setRequestHandler("roots/list", async () => {
          rootsAsked++;
          return { roots: [{ uri: "file:///project", name: "project" }] };
        }),
      { FAULTY_START_ROOTS: "1" },
    );
    try {
      // The upstream asked at start-up (no call to carry it) and gave up; the first
      // call asks the client, and the upstream, told the list changed, gets them.
      const r = await p.client.callTool({ name: "start-roots", arguments: {} });
      expect(JSON.parse(textOf(r))).toEqual([{ uri: "file:///project", name: "project" }]);
      expect(rootsAsked).toBe(1);
    } finally {
      await p.close();
    }
  });
});

describe("2025-11-25 clients, their input asked by a 2026-07-28 upstream", () => {
  let one: Peer;
  let two: Peer2;
  beforeAll(async () => {
    [one, two] = await Promise.all([
      proxied([MODERN], args, (client) => {
        client.setRequestHandler(ElicitRequestSchema, async () => ({
          action: "accept",
          content: { name: "Ada" },
        }));
      }),
      proxied2([MODERN], args, "legacy", answering2),
    ]);
  });
  afterAll(async () => {
    await Promise.all([one?.close(), two?.close()]);
  });

  it("asks the 1.x client the upstream's elicitation as a server→client request", async () => {
    const r = await one.client.callTool({ name: "ask-name", arguments: {} });
    expect(textOf(r)).toBe("hello Ada");
  });

  it("asks the 2.x legacy client the upstream's elicitation and sampling", async () => {
    asked.length = 0;
    expect(textOf(await two.client.callTool({ name: "ask-name", arguments: {} }))).toBe(
      "hello Ada Lovelace",
    );
    const sampled = await two.client.callTool({ name: "ask-model", arguments: {} });
    expect(textOf(sampled)).toContain("sampled answer 42");
    expect(asked).toEqual(["elicit: Your name?", "sample: What is 6 x 7?"]);
  });

  it("asks the 2.x legacy client the upstream's roots/list", async () => {
    const r = await two.client.callTool({ name: "ask-roots", arguments: {} });
    expect(JSON.parse(textOf(r))).toEqual([{ uri: "file:///work", name: "work" }]);
  });

  it("turns logging/setLevel into the per-request log level, and relays the log", async () => {
    const seen: string[] = [];
    two.client.setNotificationHandler("notifications/message", (n) => {
      seen.push(String(n.params.data));
    });
    await two.client.callTool({ name: "log", arguments: {} });
    await new Promise((r) => setTimeout(r, 100));
    // No level set: a 2026 upstream sends no log.
    expect(seen).toEqual([]);
    await two.client.setLoggingLevel("info");
    await two.client.callTool({ name: "log", arguments: {} });
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual(["logged by a 2026 upstream"]);
  });

  it("refuses resources/subscribe, which a 2026 upstream cannot do, and tasks/*", async () => {
    const err = await one.client
      .subscribeResource({ uri: "fixture://greeting" })
      .catch((e: { code: number; message: string }) => e);
    expect(err).toMatchObject({ code: -32601 });
    expect((err as Error).message).toContain("no resource subscriptions");
    const tasks = await one.client
      .request({ method: "tasks/list", params: {} }, ListTasksResultSchema)
      .then(
        () => ({ code: 0, message: "answered" }),
        (e: { code: number; message: string }) => e,
      );
    expect(tasks).toMatchObject({ code: -32601 });
    expect(tasks.message).toContain("relays no tasks");
  });
});

describe("a 2026-07-28 client, its input asked by a 2026-07-28 upstream", () => {
  let p: Peer2;
  beforeAll(async () => {
    p = await proxied2([MODERN], args, PIN, answering2);
  });
  afterAll(async () => {
    await p?.close();
  });

  it("passes input_required and the retry through, the upstream's requestState untouched", async () => {
    asked.length = 0;
    expect(textOf(await p.client.callTool({ name: "ask-name", arguments: {} }))).toBe(
      "hello Ada Lovelace",
    );
    expect(textOf(await p.client.callTool({ name: "ask-model", arguments: {} }))).toContain(
      "sampled answer 42",
    );
    expect(asked).toEqual(["elicit: Your name?", "sample: What is 6 x 7?"]);
  });
});
