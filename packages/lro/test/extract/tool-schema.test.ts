/**
 * `lro_extract`'s advertised input schema, as a real SDK Client lists it: every
 * property has a plain `type` (MCP Inspector 0.15 cannot fill `anyOf [T, null]`
 * fields), optional fields are simply not required, and both an absent field
 * and an explicit null mean the default.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ExtractHarness, startHarness } from "./harness.js";
import { makeMemories, projectMemory, writeOffloadFixture } from "./memory-fixtures.js";

let h: ExtractHarness;
let file: string;

beforeAll(async () => {
  h = await startHarness();
  file = writeOffloadFixture(
    h.dir,
    makeMemories(12, 2).map((m) => projectMemory(m, "medium")),
    { detail: "medium" },
  ).path;
});

afterAll(async () => {
  await h?.close();
});

describe("lro_extract input schema", () => {
  it("declares a plain type on every property, with a description", async () => {
    const { tools } = await h.client.listTools();
    const tool = tools.find((t) => t.name === "lro_extract");
    expect(tool).toBeDefined();
    const properties = (tool?.inputSchema.properties ?? {}) as Record<
      string,
      Record<string, unknown>
    >;
    expect(Object.keys(properties).sort()).toEqual(
      ["file_path", "limit", "params", "query", "raw", "recipe", "slurp"].sort(),
    );
    for (const [name, prop] of Object.entries(properties)) {
      expect(typeof prop.type, name).toBe("string");
      expect(prop.type, name).not.toBe("null");
      expect(prop.anyOf, name).toBeUndefined();
      expect(prop.oneOf, name).toBeUndefined();
      expect(prop.description, name).toEqual(expect.any(String));
    }
    expect(properties.recipe).toMatchObject({ type: "integer", minimum: 1, maximum: 10 });
    expect(properties.limit).toMatchObject({ type: "integer", minimum: 1 });
    expect(properties.slurp?.type).toBe("boolean");
    expect(properties.params?.type).toBe("object");
    expect(tool?.inputSchema.required).toEqual(["file_path"]);
  });

  it("refuses an argument it does not take instead of dropping it", async () => {
    const { tools } = await h.client.listTools();
    const tool = tools.find((t) => t.name === "lro_extract");
    expect(tool?.inputSchema.additionalProperties).toBe(false);
    // A misspelled `query` must not run the file unfiltered.
    const r = await h.call({ file_path: file, qeury: ".title" });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toMatch(/Unrecognized key.*qeury/);
  });

  it("an absent field and a null both mean the default", async () => {
    const absent = await h.call({ file_path: file, recipe: 4, limit: 2 });
    const nulls = await h.call({
      file_path: file,
      recipe: 4,
      limit: 2,
      query: null,
      params: null,
      slurp: null,
      raw: null,
    });
    expect(absent.isError, absent.text).toBe(false);
    expect(nulls).toEqual(absent);
    expect(absent.text.trimEnd().split("\n")).toHaveLength(2);
  });
});

describe("lro_extract's definition on a low-level server (atlatl-proxy's)", () => {
  it("says the argument rules with no keyword that only repeats JSON's own", () => {
    const schema = h.extract.definition.inputSchema as unknown as {
      properties: Record<string, Record<string, unknown>>;
      additionalProperties: unknown;
    };
    // zod's implied integer bound and a record's string keys / unconstrained values are dropped.
    expect(schema.properties.limit).toEqual({
      type: "integer",
      minimum: 1,
      description: expect.any(String),
    });
    expect(schema.properties.params).toEqual({ type: "object", description: expect.any(String) });
    expect(schema.properties.recipe).toMatchObject({ type: "integer", minimum: 1, maximum: 10 });
    expect(schema.additionalProperties).toBe(false);
  });
});
