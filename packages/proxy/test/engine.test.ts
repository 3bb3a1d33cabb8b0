/**
 * The engine seam in process: per-tool policy, isError, inline keys, binary
 * content in files of its own, records recipes run through bash + jq, config;
 * and a running proxy (over stdio) applying its config file's per-tool tables.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LroEvents } from "@atlatl/lro";
import { estimateCallResultTokens, reassembleResult } from "@atlatl/lro/mcp";
import { type CallToolResult, Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, Server } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProxyConfig, parseToolPolicies } from "../src/config/proxy-config.js";
import { createProxyEngine, type ProxyEngine } from "../src/proxy/local-lro.js";
import { MODERN, proxied, tempDir } from "./helpers.js";
import { runAllRecipes } from "./recipes.js";

const out = tempDir("atlatl-proxy-engine-");
let engine: ProxyEngine;
// The engine mounts lro_extract and the offload resources on this server; a real client reads them.
const server = new Server({ name: "engine-test", version: "1.0.0" }, { capabilities: {} });
const client = new Client({ name: "engine-test-client", version: "1.0.0" });
const auto = { mode: "auto" as const, inlineKeys: [] };

beforeAll(async () => {
  engine = await createProxyEngine({
    config: { enabled: true, thresholdTokens: 200, ttlSeconds: 3600, outputDir: out.dir },
    extractToolName: "lro_extract",
    resourcePrefix: "atlatl://offload/",
    events: new LroEvents({ sink: null }),
  });
  engine.mount(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
});
afterAll(async () => {
  await client.close();
  await engine.close();
  out.remove();
});

const descriptorOf = (r: CallToolResult) =>
  JSON.parse((r.content[0] as { text: string }).text) as {
    offloaded: true;
    files: Record<string, string>;
    summary: Record<string, { count: number }>;
    jq_recipes: Record<string, string>;
    guidance: string;
    [key: string]: unknown;
  };

const people = Array.from({ length: 60 }, (_, i) => ({
  id: i,
  name: `person ${i}`,
  team: ["core", "infra", "docs"][i % 3],
  score: (i * 37) % 100,
}));

describe("proxy engine", () => {
  it("keeps results at or below the threshold, isError and policy never untouched (same object)", async () => {
    const small: CallToolResult = { content: [{ type: "text", text: "ok" }] };
    expect(await engine.offloadCallResult(small, { name: "t", policy: auto })).toBe(small);
    const bigError: CallToolResult = {
      isError: true,
      content: [{ type: "text", text: "e".repeat(5000) }],
    };
    expect(await engine.offloadCallResult(bigError, { name: "t", policy: auto })).toBe(bigError);
    const big: CallToolResult = { content: [{ type: "text", text: "x".repeat(5000) }] };
    const never = { mode: "never" as const, inlineKeys: [] };
    expect(await engine.offloadCallResult(big, { name: "t", policy: never })).toBe(big);
    const high = { mode: "auto" as const, thresholdTokens: 10_000, inlineKeys: [] };
    expect(await engine.offloadCallResult(big, { name: "t", policy: high })).toBe(big);
  });

  it("keeps a result estimated exactly at the threshold inline, and offloads it one token below (spec: > offloads, <= inline)", async () => {
    const result: CallToolResult = { content: [{ type: "text", text: "word ".repeat(900) }] };
    const tokens = await estimateCallResultTokens(result, Number.POSITIVE_INFINITY);
    const at = { mode: "auto" as const, thresholdTokens: tokens, inlineKeys: [] };
    expect(await engine.offloadCallResult(result, { name: "t", policy: at })).toBe(result);
    const below = { mode: "auto" as const, thresholdTokens: tokens - 1, inlineKeys: [] };
    const r = await engine.offloadCallResult(result, { name: "t", policy: below });
    expect(descriptorOf(r).offloaded).toBe(true);
  });

  it("offloads any non-error result under policy always", async () => {
    const small: CallToolResult = {
      content: [{ type: "text", text: "two\nlines" }],
      _meta: { k: 1 },
    };
    const r = await engine.offloadCallResult(small, {
      name: "t",
      policy: { mode: "always", inlineKeys: [] },
    });
    expect(r._meta).toEqual({ k: 1 });
    expect((await reassembleResult(descriptorOf(r))).content).toEqual(small.content);
  });

  it("turns structuredContent records into the records profile: inline keys, numbered recipes, reassembly", async () => {
    const result: CallToolResult = {
      content: [{ type: "text", text: JSON.stringify({ total: 60, people }) }],
      structuredContent: { total: 60, people },
    };
    const r = await engine.offloadCallResult(result, {
      name: "find_people",
      policy: { mode: "auto", inlineKeys: ["total", "missing"] },
    });
    const d = JSON.parse((r.content[0] as { text: string }).text) as {
      file_path: string;
      total: number;
      records_key: string;
      summary: { count: number };
      jq_recipes: { description: string; command: string }[];
      guidance: string;
      reassemble: { text: Record<string, unknown>[]; structured?: unknown };
    };
    expect(d.total).toBe(60);
    expect(d).not.toHaveProperty("missing");
    expect(d.records_key).toBe("people");
    expect(d.summary.count).toBe(60);
    const lines = readFileSync(d.file_path, "utf8").trimEnd().split("\n");
    expect(JSON.parse(lines[0] as string)).toMatchObject({ profile: "records", count: 60 });
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(people);
    // The numbered recipes run in bash + jq, and by number through lro_extract.
    const n = d.jq_recipes.findIndex((x) => x.description === "Count by team") + 1;
    expect(n).toBeGreaterThan(0);
    // As a model runs them: the guidance's F=<path> first.
    const outputs = await runAllRecipes(
      { byTeam: d.jq_recipes[n - 1]?.command as string },
      undefined,
      d.guidance,
    );
    expect(JSON.parse(outputs.byTeam as string)).toContainEqual({ team: "core", count: 20 });
    const native = await engine.callExtract({ file_path: d.file_path, recipe: n });
    expect(native.isError).toBeFalsy();
    expect((native.content[0] as { text: string }).text).toContain('"team":"core","count":20');
    // Lossless: the file and the descriptor's reassemble lines give the result back.
    expect(await reassembleResult(d)).toEqual({
      content: result.content,
      structuredContent: result.structuredContent,
    });
  });

  it("keeps JSON text that does not print back byte for byte as text lines (lossless)", async () => {
    const text = JSON.stringify(people, null, 3);
    const result: CallToolResult = { content: [{ type: "text", text }] };
    const r = await engine.offloadCallResult(result, { name: "odd_json", policy: auto });
    const d = descriptorOf(r);
    expect(Object.keys(d.files)).toEqual(["text"]);
    expect(await reassembleResult(d)).toEqual({ content: result.content });
  });

  it("writes images and blob resources to files of their own, never into JSONL", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex").toString("base64");
    const blob = Buffer.alloc(3000, 7).toString("base64");
    const result: CallToolResult = {
      content: [
        { type: "text", text: "see attachments" },
        { type: "image", data: png, mimeType: "image/png" },
        {
          type: "resource",
          resource: { uri: "file:///x.bin", mimeType: "application/octet-stream", blob },
        },
        { type: "resource_link", uri: "file:///y", name: "y" },
      ],
    };
    const r = await engine.offloadCallResult(result, { name: "attach", policy: auto });
    const d = descriptorOf(r);
    expect(Object.keys(d.files)).toEqual(["text", "image", "resource", "resource_link"]);
    for (const path of Object.values(d.files)) {
      const body = readFileSync(path, "utf8");
      expect(body).not.toContain(png);
      expect(body).not.toContain(blob.slice(0, 100));
      expect(statSync(path).mode & 0o777).toBe(0o600);
    }
    const image = JSON.parse(
      readFileSync(d.files.image as string, "utf8").split("\n")[1] as string,
    );
    expect(image.file).toMatch(/\.png$/);
    expect(d.guidance).toContain(image.file);
    expect(statSync(image.file).mode & 0o777).toBe(0o600);
    expect((await reassembleResult(d)).content).toEqual(result.content);
  });

  it("lists and reads offload files as resources, and lro_extract queries them", async () => {
    const result: CallToolResult = {
      content: [{ type: "text", text: "alpha\nbeta\n".repeat(300) }],
    };
    const d = descriptorOf(await engine.offloadCallResult(result, { name: "words", policy: auto }));
    const { resources: listed } = await client.listResources();
    const name = (d.files.text as string).split("/").pop() as string;
    expect(listed.map((r) => r.uri)).toContain(`atlatl://offload/${name}`);
    const read = await client.readResource({ uri: `atlatl://offload/${name}?offset=1&limit=2` });
    expect((read.contents[0] as { text: string }).text).toBe(
      '{"block":0,"line":1,"text":"alpha"}\n{"block":0,"line":2,"text":"beta"}\n',
    );
    const x = (await client.callTool({
      name: "lro_extract",
      arguments: {
        file_path: d.files.text,
        query: 'select(.text == "beta") | .line',
        slurp: false,
        limit: 2,
      },
    })) as CallToolResult;
    expect((x.content[0] as { text: string }).text).toBe("2\n4\n");
  });
});

describe("proxy config", () => {
  it("reads [prompt.offload], [proxy] and [proxy.tools.*] from the TOML file, flags winning", () => {
    const file = join(out.dir, "config.toml");
    writeFileSync(
      file,
      [
        "[prompt.offload]",
        "threshold_tokens = 900",
        "[proxy]",
        "timeout_seconds = 30",
        "[proxy.tools.read_file]",
        'policy = "always"',
        'inline_keys = ["path"]',
        "[proxy.tools.search]",
        "policy = 5000",
      ].join("\n"),
    );
    const c = loadProxyConfig({ configFile: file, offload: { ttlSeconds: 60 } }, {});
    expect(c.offload.thresholdTokens).toBe(900);
    expect(c.offload.ttlSeconds).toBe(60);
    expect(c.timeoutSeconds).toBe(30);
    expect(c.tools.read_file).toEqual({ mode: "always", inlineKeys: ["path"] });
    expect(c.tools.search).toEqual({ mode: "auto", thresholdTokens: 5000, inlineKeys: [] });
    const env = loadProxyConfig({ configFile: file }, { ATLATL_PROXY__TIMEOUT_SECONDS: "5" });
    expect(env.timeoutSeconds).toBe(5);
  });

  it("passes an embedder's filePrefix through to the engine's file names", async () => {
    const config = loadProxyConfig(
      { offload: { filePrefix: "embedded", outputDir: out.dir, thresholdTokens: 200 } },
      {},
    );
    const prefixed = await createProxyEngine({
      config: config.offload,
      extractToolName: "lro_extract",
      resourcePrefix: "atlatl://offload/",
      events: new LroEvents({ sink: null }),
    });
    try {
      const r = await prefixed.offloadCallResult(
        { content: [{ type: "text", text: "x" }] },
        { name: "t", policy: { mode: "always", inlineKeys: [] } },
      );
      const name = (descriptorOf(r).files.text as string).split("/").pop();
      expect(name).toMatch(/^embedded-t-/);
    } finally {
      await prefixed.close();
    }
  });

  it("reads proxy.upstream_protocol (auto by default) and refuses a generation it does not know", () => {
    expect(loadProxyConfig({}, {}).upstreamProtocol).toBe("auto");
    expect(
      loadProxyConfig({}, { ATLATL_PROXY__UPSTREAM_PROTOCOL: "2026-07-28" }).upstreamProtocol,
    ).toBe("2026-07-28");
    expect(loadProxyConfig({ upstreamProtocol: "legacy" }, {}).upstreamProtocol).toBe("legacy");
    expect(() => loadProxyConfig({}, { ATLATL_PROXY__UPSTREAM_PROTOCOL: "2024" })).toThrow(
      /one of auto, legacy, 2026-07-28/,
    );
  });

  it("names the bad key of a per-tool policy", () => {
    expect(() =>
      parseToolPolicies({ proxy: { tools: { x: { policy: "sometimes" } } } }, "c.toml"),
    ).toThrow(/\[proxy.tools.x\]: policy = "sometimes"/);
    expect(() => parseToolPolicies({ proxy: { tools: { x: { polcy: 1 } } } }, "c.toml")).toThrow(
      /unknown key polcy/,
    );
    expect(() =>
      parseToolPolicies({ proxy: { tools: { x: { inline_keys: "a" } } } }, "c.toml"),
    ).toThrow(/inline_keys must be an array of strings/);
  });
});

describe("a running proxy", () => {
  it("applies [proxy.tools.<name>] from its config file: always, never, and a threshold of its own", async () => {
    const file = join(out.dir, "tools.toml");
    writeFileSync(
      file,
      [
        "[proxy.tools.echo]",
        'policy = "always"',
        "[proxy.tools.lines]",
        'policy = "never"',
        "[proxy.tools.era]",
        "policy = 1",
      ].join("\n"),
    );
    const p = await proxied(
      [MODERN],
      ["--config", file, "--threshold", "200", "--output-dir", join(out.dir, "running")],
    );
    try {
      const call = async (name: string, args: Record<string, unknown> = {}) =>
        (
          (await p.client.callTool({ name, arguments: args })) as {
            content: { type: string; text: string }[];
          }
        ).content[0]?.text as string;
      // A two-word result, far below the threshold: offloaded anyway.
      const echo = JSON.parse(await call("echo", { message: "hi there" }));
      expect(echo.offloaded).toBe(true);
      // Far above the threshold: passed through as it came.
      const lines = await call("lines", { count: 400 });
      expect(lines.split("\n")).toHaveLength(400);
      // A small result above this tool's own threshold of 1 token.
      expect(JSON.parse(await call("era")).offloaded).toBe(true);
      // A tool without a table: the default policy (small, inline).
      expect(await call("aborted-count")).toBe("0");
    } finally {
      await p.close();
    }
  }, 60_000);
});
