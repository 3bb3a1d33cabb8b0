import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, jsonOf, type RunningServer, startServer, textOf } from "./spawn-server.js";

/**
 * What an MCP client sees when a tool fails or is given odd text: driven through
 * the SDK's real Client over stdio against `atlatl serve`.
 */
let s: RunningServer;

beforeAll(async () => {
  s = await startServer();
  const seeded = await call(s.client, "capture_memory", { content: "Ledger rotation runbook" });
  expect(seeded.isError).toBeFalsy();
}, 60_000);
afterAll(async () => {
  await s?.close();
});

function errorOf(result: Awaited<ReturnType<typeof call>>) {
  expect(result.isError).toBe(true);
  return (result.structuredContent as { error: { code: string; message: string; field?: string } })
    ?.error;
}

describe("tool errors carry their code and field", () => {
  it("INVALID_ARGUMENT names the field in the text and in structuredContent", async () => {
    const result = await call(s.client, "capture_memory", { content: "   " });
    const error = errorOf(result);
    expect(error).toMatchObject({ code: "INVALID_ARGUMENT", field: "content" });
    expect(error.message).toMatch(/content is required/);
    expect(textOf(result)).toBe(`INVALID_ARGUMENT (content): ${error.message}`);
  });

  it("arguments the input schema refuses are INVALID_ARGUMENT naming the argument too", async () => {
    const ns = await call(s.client, "capture_memory", { content: "x", namespace: "bad ns" });
    const error = errorOf(ns);
    expect(error).toMatchObject({ code: "INVALID_ARGUMENT", field: "namespace" });
    expect(error.message).toMatch(/namespace must be slash-separated segments/);
    expect(textOf(ns)).toMatch(/^INVALID_ARGUMENT \(namespace\): /);
    const limit = await call(s.client, "list_memories", { limit: 5000 });
    expect(errorOf(limit)).toMatchObject({ code: "INVALID_ARGUMENT", field: "limit" });
  });

  it("an argument the tool does not take is INVALID_ARGUMENT naming it, not silently dropped", async () => {
    // A filter nested under `filter` (the tools take namespace, tags... at the top)
    // used to be dropped: the recall then ran unfiltered.
    const nested = await call(s.client, "recall_memories", {
      query: "ledger",
      filter: { namespace: "_semantic" },
    });
    const error = errorOf(nested);
    expect(error).toMatchObject({ code: "INVALID_ARGUMENT", field: "filter" });
    expect(textOf(nested)).toMatch(/^INVALID_ARGUMENT \(filter\): Unrecognized key/);
    const { tools } = await s.client.listTools();
    const recall = tools.find((t) => t.name === "recall_memories");
    expect(recall?.inputSchema.additionalProperties).toBe(false);
    const typo = await call(s.client, "get_memory", { id: "x", detial: "full" });
    expect(errorOf(typo)).toMatchObject({ code: "INVALID_ARGUMENT", field: "detial" });
  });

  it("a blank query is INVALID_ARGUMENT on query; punctuation is words; the server keeps serving", async () => {
    const result = await call(s.client, "search_memories", { query: "  " });
    expect(errorOf(result)).toMatchObject({ code: "INVALID_ARGUMENT", field: "query" });
    expect(textOf(result)).toMatch(/^INVALID_ARGUMENT \(query\): /);
    const unbalanced = await call(s.client, "search_memories", { query: '"unbalanced' });
    expect(unbalanced.isError).toBeFalsy();
    const after = await call(s.client, "search_memories", { query: "ledger" });
    expect(after.isError).toBeFalsy();
  });

  it("a forged cursor is INVALID_ARGUMENT on cursor", async () => {
    const result = await call(s.client, "list_memories", { cursor: "not-a-cursor" });
    expect(errorOf(result)).toMatchObject({ code: "INVALID_ARGUMENT", field: "cursor" });
  });

  it("an unknown id is NOT_FOUND on id, for get, update and forget", async () => {
    for (const [tool, args] of [
      ["get_memory", { id: "nope" }],
      ["update_memory", { id: "nope", title: "x" }],
      ["forget_memory", { id: "nope" }],
    ] as const) {
      const result = await call(s.client, tool, args);
      expect(errorOf(result)).toMatchObject({ code: "NOT_FOUND", field: "id" });
      expect(textOf(result)).toMatch(/^NOT_FOUND \(id\): No memory with id "nope"/);
    }
  });
});

describe("lro_extract errors", () => {
  it("carry their code in structuredContent too", async () => {
    const result = await call(s.client, "lro_extract", {
      file_path: "/etc/passwd",
      recipe: 1,
    });
    const error = errorOf(result);
    expect(error.code).toMatch(/^[A-Z][A-Z0-9_]+$/);
    expect(textOf(result)).toBe(`${error.code}: ${error.message}`);
  });
});

describe("lone UTF-16 surrogates", () => {
  it("capture and update acknowledge exactly what is stored and read back", async () => {
    const captured = await call(s.client, "capture_memory", {
      content: "broken \ud800 high and \udc00 low, kept pair \ud83d\ude00",
      title: "title \udbff",
      tags: ["tag\ud800"],
    });
    expect(captured.isError).toBeFalsy();
    const ack = jsonOf<{ id: string; content: string; title: string; tags: string[] }>(captured);
    expect(ack.content).toBe("broken \ufffd high and \ufffd low, kept pair \u{1f600}");
    expect(ack.title).toBe("title \ufffd");
    expect(ack.tags).toEqual(["tag\ufffd"]);
    expect(jsonOf(await call(s.client, "get_memory", { id: ack.id }))).toEqual(ack);

    const updated = jsonOf<{ content: string }>(
      await call(s.client, "update_memory", { id: ack.id, content: "now \udfff" }),
    );
    expect(updated.content).toBe("now \ufffd");
    expect(jsonOf(await call(s.client, "get_memory", { id: ack.id }))).toEqual(updated);
  });
});

describe("tool input schemas", () => {
  it("give every property of every listed tool a plain JSON type (no anyOf with null)", async () => {
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toContain("lro_extract");
    const offenders: string[] = [];
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<
        string,
        Record<string, unknown>
      >;
      for (const [name, schema] of Object.entries(properties)) {
        if (typeof schema.type !== "string" || "anyOf" in schema || "oneOf" in schema) {
          offenders.push(`${tool.name}.${name}: ${JSON.stringify(schema)}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
