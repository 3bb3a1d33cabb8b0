/**
 * The proxy between protocol generations (issue 21, item 4): a 2026-07-28
 * client (SDK 2.x, pinned) in front of 2025-11-25 upstreams (server-everything
 * from npm, the SDK 1.x faulty fixture), and 2025 clients (SDK 1.x, SDK 2.x
 * `legacy`) in front of a 2026-07-28 upstream (an SDK 2.x `serveStdio`
 * fixture): tools with LRO and `lro_extract`, resources, prompts, completion,
 * progress and cancellation.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  direct,
  EVERYTHING,
  FIXTURES,
  MODERN,
  type Peer,
  type Peer2,
  proxied,
  proxied2,
  tempDir,
} from "./helpers.js";

const FAULTY = join(FIXTURES, "faulty-server.mjs");
const PIN = { pin: "2026-07-28" } as const;
const out = tempDir("atlatl-proxy-generations-");

afterAll(() => out.remove());

/** The text of a result's first content block. */
const textOf = (r: { content?: unknown } | { [key: string]: unknown }) =>
  (r.content as { text: string }[])[0]?.text as string;

/** The calls the SDK 1.x and 2.x clients share, as these tests make them. */
interface AnyClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<{
    content?: unknown;
  }>;
  listTools(): Promise<{ tools: { name: string }[] }>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  getPrompt(params: {
    name: string;
    arguments?: Record<string, string>;
  }): Promise<{ messages: unknown[] }>;
  complete(params: {
    ref: { type: "ref/prompt"; name: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[] } }>;
  getServerVersion(): unknown;
  getInstructions(): string | undefined;
}

/** A 2025 client of either SDK, its calls with options made the same way. */
interface Session {
  client: AnyClient;
  call(
    params: { name: string; arguments?: Record<string, unknown> },
    options: { onprogress?: (p: { progress: number }) => void; signal?: AbortSignal },
  ): Promise<{ content?: unknown }>;
  close(): Promise<void>;
}

// The two SDKs type the same wire results with their own types: compared loosely here.
const sessionOf1 = (p: Peer): Session => ({
  client: p.client as unknown as AnyClient,
  call: async (params, options) =>
    (await p.client.callTool(params, undefined, options)) as { content?: unknown },
  close: p.close,
});
const sessionOf2 = (p: Peer2): Session => ({
  client: p.client as unknown as AnyClient,
  call: (params, options) => p.client.callTool(params, options),
  close: p.close,
});

/** Answers for what the test client declares it can be asked (`CLIENT_CAPS`). */
function answering(client: Peer2["client"]): void {
  client.setRequestHandler("roots/list", async () => ({
    roots: [{ uri: "file:///tmp", name: "tmp" }],
  }));
  client.setRequestHandler("sampling/createMessage", async () => ({
    role: "assistant",
    model: "test-model",
    content: { type: "text", text: "sampled answer 42" },
  }));
  client.setRequestHandler("elicitation/create", async () => ({
    action: "accept",
    content: { name: "Ada Lovelace", check: true },
  }));
}

/** An offloaded long result, read back through lro_extract and resources/read. */
async function expectOffloaded(client: AnyClient, result: { content?: unknown }, lines: number) {
  const descriptor = JSON.parse(textOf(result));
  expect(descriptor.offloaded).toBe(true);
  expect(descriptor.summary.text.count).toBe(lines);
  const extracted = await client.callTool({
    name: "lro_extract",
    arguments: { file_path: descriptor.files.text, query: "select(.line == 2) | .text", raw: true },
  });
  expect(textOf(extracted)).toMatch(/^line 1 /);
  const { resources } = await client.listResources();
  const name = descriptor.files.text.split("/").at(-1);
  const mine = resources.find((r) => r.uri === `atlatl://offload/${name}`);
  expect(mine).toBeDefined();
  const read = await client.readResource({ uri: mine?.uri as string });
  expect((read.contents[0] as { text: string }).text).toBe(
    readFileSync(descriptor.files.text, "utf8"),
  );
}

describe("a 2026-07-28 client through the proxy to a 2025-11-25 upstream", () => {
  let d: Peer;
  let p: Peer2;
  let f: Peer2;
  beforeAll(async () => {
    [d, p, f] = await Promise.all([
      direct([EVERYTHING, "stdio"]),
      proxied2([EVERYTHING, "stdio"], ["--output-dir", out.dir], PIN, answering),
      proxied2([FAULTY], ["--output-dir", out.dir], PIN, answering),
    ]);
  });
  afterAll(async () => {
    await Promise.all([d?.close(), p?.close(), f?.close()]);
  });

  it("speaks 2026-07-28 to the client and initialize to the upstream, with the client's identity", async () => {
    expect(p.client.getProtocolEra()).toBe("modern");
    expect(p.client.getServerVersion()).toEqual(d.client.getServerVersion());
    expect(p.client.getInstructions()).toEqual(d.client.getInstructions());
    const r = await f.client.callTool({ name: "client-info", arguments: {} });
    const info = JSON.parse(textOf(r));
    // The faulty fixture saw an initialize: the 2026 client's envelope identity, marked a proxy.
    expect(info.raw.clientInfo).toEqual({ name: "proxy-test-2", version: "2.0.0", proxy: true });
    expect(info.raw.capabilities.sampling).toEqual({});
    expect(info.caps.experimental).toEqual({ "atlatl/proxy": {} });
  });

  it("lists and calls tools, offloads a long result, and lro_extract and resources/read read it", async () => {
    const [dt, pt] = await Promise.all([d.client.listTools(), p.client.listTools()]);
    expect(pt.tools.map((t) => t.name)).toEqual([...dt.tools.map((t) => t.name), "lro_extract"]);
    const echo = { name: "echo", arguments: { message: "hello across generations" } };
    expect((await p.client.callTool(echo)).content).toEqual(
      (await d.client.callTool(echo)).content,
    );
    const message = Array.from({ length: 3000 }, (_, i) => `line ${i} of a long echo`).join("\n");
    await expectOffloaded(
      p.client,
      await p.client.callTool({ name: "echo", arguments: { message } }),
      3000,
    );
  });

  it("tells the client's subscription when an offload file appears", async () => {
    const seen: string[] = [];
    p.client.setNotificationHandler("notifications/resources/list_changed", () => {
      seen.push("resources/list_changed");
    });
    const subscription = await p.client.listen({ resourcesListChanged: true });
    const message = Array.from({ length: 2000 }, (_, i) => `line ${i} again`).join("\n");
    const r = await p.client.callTool({ name: "echo", arguments: { message } });
    expect(JSON.parse(textOf(r)).offloaded).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await subscription.close();
    expect(seen).toContain("resources/list_changed");
  });

  it("lists and reads resources, gets prompts and completes arguments as the upstream does", async () => {
    const { resources } = await d.client.listResources();
    const uri = (resources[0] as { uri: string }).uri;
    const listed = await p.client.listResources();
    expect(listed.resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(resources.map((r) => r.uri)),
    );
    expect((await p.client.readResource({ uri })).contents).toEqual(
      (await d.client.readResource({ uri })).contents,
    );
    const get = { name: "args-prompt", arguments: { city: "Paris", state: "TX" } };
    expect((await p.client.getPrompt(get)).messages).toEqual(
      (await d.client.getPrompt(get)).messages,
    );
    const complete = {
      ref: { type: "ref/prompt" as const, name: "completable-prompt" },
      argument: { name: "department", value: "E" },
    };
    expect((await p.client.complete(complete)).completion).toEqual(
      (await d.client.complete(complete)).completion,
    );
  });

  it("relays progress of a long-running call", async () => {
    const progress: number[] = [];
    const r = await p.client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 0.5, steps: 5 } },
      // The upstream's own (the SDK client adds progress of its own while it answers input requests).
      { onprogress: (n) => n.total === 5 && progress.push(n.progress) },
    );
    expect(progress.slice(0, 4)).toEqual([1, 2, 3, 4]);
    expect(JSON.stringify(r.content)).toContain("Long running operation completed");
  });

  it("relays the upstream's list changes on the client's subscription, and no log messages", async () => {
    const seen: string[] = [];
    f.client.setNotificationHandler("notifications/tools/list_changed", () => {
      seen.push("tools/list_changed");
    });
    f.client.setNotificationHandler("notifications/message", () => {
      seen.push("log");
    });
    const subscription = await f.client.listen({ toolsListChanged: true });
    // The upstream sends tools/list_changed and a log message (unsolicited on 2025).
    await f.client.callTool({ name: "notify", arguments: {} });
    await new Promise((r) => setTimeout(r, 200));
    await subscription.close();
    expect(seen).toEqual(["tools/list_changed"]);
  });

  it("passes the client's cancellation on to the upstream", async () => {
    const before = Number(
      textOf(await f.client.callTool({ name: "aborted-count", arguments: {} })),
    );
    const controller = new AbortController();
    const call = f.client.callTool({ name: "hang", arguments: {} }, { signal: controller.signal });
    setTimeout(() => controller.abort("changed my mind"), 200);
    await expect(call).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 200));
    const after = Number(textOf(await f.client.callTool({ name: "aborted-count", arguments: {} })));
    expect(after).toBe(before + 1);
  });
});

/** The 2025 clients of the second half: SDK 1.x, and SDK 2.x negotiating `legacy`. */
const legacyClients: [string, () => Promise<Session>][] = [
  ["SDK 1.x", async () => sessionOf1(await proxied([MODERN], ["--output-dir", out.dir]))],
  [
    "SDK 2.x legacy",
    async () =>
      sessionOf2(await proxied2([MODERN], ["--output-dir", out.dir], "legacy", answering)),
  ],
];

describe.each(legacyClients)(
  "a 2025-11-25 client (%s) through the proxy to a 2026-07-28 upstream",
  (_name, open) => {
    let p: Session;
    beforeAll(async () => {
      p = await open();
    });
    afterAll(async () => {
      await p?.close();
    });

    it("speaks initialize to the client and 2026-07-28 to the upstream, with the client's identity", async () => {
      expect(p.client.getServerVersion()).toEqual({ name: "modern-fixture", version: "2.0.0" });
      expect(p.client.getInstructions()).toBe("Speaks 2026-07-28.");
      const era = JSON.parse(textOf(await p.client.callTool({ name: "era", arguments: {} })));
      expect(era.version).toBe("2026-07-28");
      expect(era.clientInfo).toMatchObject({
        name: expect.stringMatching(/^proxy-test/),
        proxy: true,
      });
    });

    it("lists and calls tools, offloads a long result, and lro_extract and resources/read read it", async () => {
      const { tools } = await p.client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        "echo",
        "lines",
        "progress",
        "hang",
        "aborted-count",
        "log",
        "era",
        "ask-name",
        "ask-model",
        "ask-roots",
        "lro_extract",
      ]);
      const echo = await p.client.callTool({ name: "echo", arguments: { message: "hi" } });
      // Nothing of the 2026 leg (the upstream's serverInfo stamp) reaches a 2025 client.
      expect(echo).toEqual({ content: [{ type: "text", text: "hi" }] });
      await expectOffloaded(
        p.client,
        await p.client.callTool({ name: "lines", arguments: { count: 3000 } }),
        3000,
      );
    });

    it("lists and reads resources, gets prompts and completes arguments", async () => {
      const { resources } = await p.client.listResources();
      expect(resources.map((r) => r.uri)).toContain("fixture://greeting");
      const read = await p.client.readResource({ uri: "fixture://greeting" });
      expect(read.contents).toEqual([
        { uri: "fixture://greeting", mimeType: "text/plain", text: "hello resource" },
      ]);
      const prompt = await p.client.getPrompt({ name: "greet", arguments: { name: "Ada" } });
      expect(prompt.messages).toEqual([
        { role: "user", content: { type: "text", text: "Greet Ada" } },
      ]);
      const done = await p.client.complete({
        ref: { type: "ref/prompt", name: "greet" },
        argument: { name: "name", value: "A" },
      });
      expect(done.completion.values).toEqual(["Ada", "Alan"]);
    });

    it("relays progress", async () => {
      const progress: number[] = [];
      const call = { name: "progress", arguments: { steps: 4 } };
      const onprogress = (n: { progress: number }) => progress.push(n.progress);
      const r = await p.call(call, { onprogress });
      expect(textOf(r)).toBe("done in 4 steps");
      expect(progress.slice(0, 3)).toEqual([1, 2, 3]);
    });

    it("passes the client's cancellation on to the upstream", async () => {
      const count = async () =>
        Number(textOf(await p.client.callTool({ name: "aborted-count", arguments: {} })));
      const before = await count();
      const controller = new AbortController();
      const call = { name: "hang", arguments: {} };
      const pending = p.call(call, { signal: controller.signal });
      setTimeout(() => controller.abort("changed my mind"), 200);
      await expect(pending).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 200));
      expect(await count()).toBe(before + 1);
    });
  },
);

describe("--upstream-protocol", () => {
  it("legacy speaks initialize to an upstream that would speak 2026-07-28", async () => {
    const p = await proxied([MODERN], ["--output-dir", out.dir, "--upstream-protocol", "legacy"]);
    try {
      const era = JSON.parse(textOf(await p.client.callTool({ name: "era", arguments: {} })));
      expect(era.version).toBe("2025");
    } finally {
      await p.close();
    }
  });

  it("2026-07-28 refuses a 2025-only upstream: the client's opening request fails saying so", async () => {
    const err = await proxied(
      [EVERYTHING, "stdio"],
      ["--output-dir", out.dir, "--upstream-protocol", "2026-07-28"],
    ).then(
      () => new Error("connected"),
      (e: Error) => e,
    );
    expect(err.message).toContain("cannot connect to the upstream MCP server");
    expect(err.message).toContain("2026-07-28");
  });
});
