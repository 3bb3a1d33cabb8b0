import { readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { OffloadResponse } from "@atlatl/lro";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS } from "../backends/backends.js";
import { call, jsonOf, textOf } from "../e2e/spawn-server.js";
import { ATLATL_TOOLS } from "./tool-names.js";
import { type McpServerUnderTest, TRANSPORTS } from "./transports.js";

const NAMESPACES = [
  "_semantic/decisions",
  "_semantic/preferences",
  "_episodic/sessions",
  "_episodic/incidents",
  "_procedural/runbooks",
  "_procedural/patterns",
] as const;
const TOPICS = ["billing", "search", "onboarding", "caching", "alerting", "exports", "auth"];

function typeOf(namespace: string): "semantic" | "episodic" | "procedural" {
  return namespace.slice(1, namespace.indexOf("/")) as "semantic" | "episodic" | "procedural";
}

/** 500 memories of ~150 tokens at full detail; every one mentions "ledger", one "zephyr". */
function corpus(): Record<string, unknown>[] {
  return Array.from({ length: 500 }, (_, i) => {
    const namespace = NAMESPACES[i % NAMESPACES.length] as string;
    const topic = TOPICS[i % TOPICS.length] as string;
    const unique =
      i === 137 ? " The zephyr rollout is the only one that needed a manual gate." : "";
    return {
      title: `Ledger note ${i}: ${topic} ${typeOf(namespace)} memory`,
      content:
        `Ledger entry ${i} records how the team handled ${topic}. ` +
        `We compared two approaches, measured latency and error rates for a week, and kept the one that ` +
        `was simpler to operate. Follow-up owners were named in the weekly review.${unique}`,
      namespace,
      memory_type: typeOf(namespace),
      tags: ["ledger", `team-${i % 5}`, topic],
      confidence: Math.round(((i % 10) / 10 + 0.05) * 100) / 100,
    };
  });
}

/** Every transport on every backend: one suite, the same expectations. */
const CASES = BACKENDS.flatMap((backend) =>
  TRANSPORTS.map((transport) => ({
    backend,
    transport,
    name: `${transport.name}, ${backend.name}`,
  })),
);

describe.each(CASES)("atlatl serve (SDK Client over $name)", ({ backend, transport }) => {
  let s: McpServerUnderTest;
  const captured: { id: string; namespace: string }[] = [];

  beforeAll(async () => {
    s = await transport.start(backend);
    for (const input of corpus()) {
      const result = await call(s.client, "capture_memory", input);
      expect(result.isError).toBeFalsy();
      const record = jsonOf<{ id: string; namespace: string }>(result);
      captured.push({ id: record.id, namespace: record.namespace });
    }
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  });

  it("lists the memory tools and lro_extract", async () => {
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(ATLATL_TOOLS);
  });

  it("offloads a broad full-detail recall to a private JSONL file holding all 500 records", async () => {
    const result = await call(s.client, "recall_memories", {
      query: "ledger",
      limit: 1000,
      detail: "full",
    });
    expect(result.isError).toBeFalsy();
    const descriptor = jsonOf<OffloadResponse & { next_cursor?: unknown }>(result);
    expect(descriptor.offloaded).toBe(true);
    expect(descriptor.next_cursor).toBeUndefined();
    expect(descriptor.summary).toMatchObject({ count: 500, operation: "recall", detail: "full" });
    expect(descriptor.summary.score_range).toHaveLength(2);
    expect(descriptor.jq_recipes).toHaveLength(10);
    expect(descriptor.file_path.startsWith(s.outputDir)).toBe(true);
    expect(descriptor.file_path).toMatch(/\/atlatl-recall-[0-9A-Z]{26}\.jsonl$/);

    const lines = readFileSync(descriptor.file_path, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(501);
    const header = JSON.parse(lines[0] as string);
    expect(header).toMatchObject({
      type: "lro_header",
      operation: "recall",
      query: "ledger",
      count: 500,
      detail: "full",
    });
    const ids = lines.slice(1).map((l) => JSON.parse(l).id as string);
    expect(new Set(ids)).toEqual(new Set(captured.map((c) => c.id)));
    expect(statSync(descriptor.file_path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(descriptor.file_path)).mode & 0o777).toBe(0o700);

    const link = result.content.find((c) => c.type === "resource_link");
    expect(link).toMatchObject({
      uri: expect.stringMatching(/^atlatl:\/\/offload\/atlatl-recall-/),
    });

    // The same file through lro_extract (no shell): recipe 6 counts by namespace.
    const extracted = await call(s.client, "lro_extract", {
      file_path: descriptor.file_path,
      recipe: 6,
    });
    expect(extracted.isError).toBeFalsy();
    const counts = textOf(extracted)
      .trim()
      .split("\n")
      .flatMap((l) => JSON.parse(l) as { namespace: string; count: number }[]);
    const expected = new Map<string, number>();
    for (const c of captured) expected.set(c.namespace, (expected.get(c.namespace) ?? 0) + 1);
    expect(new Map(counts.map((c) => [c.namespace, c.count]))).toEqual(expected);

    // ...and as an MCP resource.
    const { resources } = await s.client.listResources();
    const uri = (link as { uri: string }).uri;
    expect(resources.map((r) => r.uri)).toContain(uri);
    const read = await s.client.readResource({ uri });
    const text = (read.contents[0] as { text?: string }).text ?? "";
    expect(JSON.parse(text.split("\n")[0] as string)).toMatchObject({
      type: "lro_header",
      count: 500,
    });
  });

  it("describes search_memories with the store's query syntax", async () => {
    const { tools } = await s.client.listTools();
    const search = tools.find((t) => t.name === "search_memories");
    const { fullText, querySyntax } = backend.capabilities;
    expect(search?.description).toContain(`engine: ${fullText}`);
    expect(search?.description).toContain(querySyntax.summary);
    expect(JSON.stringify(search?.inputSchema)).toContain(querySyntax.example);
  });

  it("answers searches with hyphens, colons and parentheses as words", async () => {
    for (const query of ["zephyr-rollout", "Note 137:", "rollout (zephyr)"]) {
      const result = await call(s.client, "search_memories", { query, detail: "light" });
      expect(result.isError, query).toBeFalsy();
      const body = jsonOf<{ count: number; records: { title: string }[] }>(result);
      expect(
        body.records.map((r) => r.title),
        query,
      ).toEqual([expect.stringMatching(/^Ledger note 137:/)]);
    }
    for (const query of ['"', "valve)) ((", "*", "NEAR(", "title:", "-"]) {
      const result = await call(s.client, "search_memories", { query });
      expect(result.isError, query).toBeFalsy();
    }
  });

  it("returns a narrow recall inline", async () => {
    const result = await call(s.client, "recall_memories", { query: "zephyr", detail: "medium" });
    const body = jsonOf<{ count: number; records: { title: string; content: string }[] }>(result);
    expect(body.count).toBe(1);
    expect(body.records[0]?.title).toBe(corpus()[137]?.title);
    expect(body.records[0]?.content).toContain("zephyr");
  });

  it("walks a set below the threshold exactly once with list_memories cursors, while memories are added", async () => {
    // team-0 and billing: every 35th memory, 15 in all (light records: below 1600 tokens).
    const expected = corpus()
      .map((m, i) => ({ m, id: captured[i]?.id }))
      .filter(({ m }) => (m.tags as string[]).includes("team-0"))
      .filter(({ m }) => (m.tags as string[]).includes("billing"))
      .map(({ id }) => id);
    expect(expected).toHaveLength(15);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const result = await call(s.client, "list_memories", {
        tags: ["team-0", "billing"],
        limit: 4,
        sort: "created",
        order: "asc",
        ...(cursor ? { cursor } : {}),
      });
      const page = jsonOf<{
        records: { id: string }[];
        total: number;
        next_cursor?: string | null;
        offloaded?: boolean;
      }>(result);
      expect(page.offloaded).toBeUndefined();
      if (pages === 0) expect(page.total).toBe(15);
      seen.push(...page.records.map((r) => r.id));
      cursor = page.next_cursor ?? undefined;
      pages++;
      if (pages === 2) {
        await call(s.client, "capture_memory", {
          content: "Added while paging: a late billing memory.",
          tags: ["team-0", "billing"],
        });
      }
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of expected) expect(seen).toContain(id);
    expect(pages).toBeGreaterThanOrEqual(4);
  });

  it("keeps inject_context inline for a narrow query and offloads a large pre-budget set", async () => {
    const narrow = await call(s.client, "inject_context", { query: "zephyr", budget_tokens: 400 });
    expect(narrow.isError).toBeFalsy();
    expect(textOf(narrow)).toContain(corpus()[137]?.title as string);

    const broad = await call(s.client, "inject_context", { query: "ledger", limit: 1000 });
    const descriptor = jsonOf<OffloadResponse>(broad);
    expect(descriptor.offloaded).toBe(true);
    expect(descriptor.summary).toMatchObject({ operation: "inject", detail: "medium" });
    expect(descriptor.summary.count).toBeGreaterThanOrEqual(500);
    expect(descriptor.file_path).toMatch(/atlatl-inject-[0-9A-Z]{26}\.jsonl$/);
  });

  it("answers bad arguments with errors a model can act on, and keeps serving", async () => {
    // Each error as a program reads it (structuredContent.error: code, field) and as
    // a model reads it (the text: `CODE (field): message`), and both say the same.
    const coded = (result: Awaited<ReturnType<typeof call>>, code: string, field?: string) => {
      expect(result.isError).toBe(true);
      const error = (result.structuredContent as { error?: Record<string, unknown> } | undefined)
        ?.error;
      expect(error).toMatchObject({ code, ...(field ? { field } : {}) });
      expect(textOf(result)).toBe(`${code}${field ? ` (${field})` : ""}: ${error?.message}`);
      return error?.message as string;
    };
    const tooMany = await call(s.client, "recall_memories", { query: "ledger", limit: 5000 });
    expect(coded(tooMany, "INVALID_ARGUMENT", "limit")).toMatch(/limit/);

    const noContent = await call(s.client, "capture_memory", { title: "no content" });
    expect(coded(noContent, "INVALID_ARGUMENT", "content")).toMatch(/content/);

    const badNamespace = await call(s.client, "capture_memory", {
      content: "x",
      namespace: "../etc",
    });
    expect(coded(badNamespace, "INVALID_ARGUMENT", "namespace")).toMatch(/namespace/);

    const badQuery = await call(s.client, "search_memories", { query: "   " });
    expect(coded(badQuery, "INVALID_ARGUMENT", "query").length).toBeGreaterThan(10);

    const missing = await call(s.client, "get_memory", { id: "no-such-id" });
    expect(coded(missing, "NOT_FOUND", "id")).toMatch(/No memory with id/);

    const both = await call(s.client, "lro_extract", {
      file_path: "/etc/passwd",
      recipe: 1,
      query: ".",
    });
    expect(both.isError).toBe(true);
    expect((both.structuredContent as { error?: { code?: string } })?.error?.code).toEqual(
      expect.any(String),
    );

    const ok = await call(s.client, "recall_memories", { query: "zephyr" });
    expect(ok.isError).toBeFalsy();
    expect(jsonOf<{ count: number }>(ok).count).toBe(1);
  });

  it("logs to stderr only (stdout stays the protocol channel)", () => {
    expect(s.stderr()).toMatch(transport.banner);
    expect(s.stderr()).toMatch(/OffloadCreated/);
  });
});
