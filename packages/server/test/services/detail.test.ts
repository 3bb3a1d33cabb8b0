import { memoryLineSchema } from "@atlatl/lro";
import { describe, expect, it } from "vitest";
import { toRecord } from "../../src/model/detail.js";
import { wikiLinks } from "../../src/model/wiki-links.js";
import { makeMemory, richMemory } from "../store/fixtures.js";

const LIGHT_KEYS = [
  "id",
  "title",
  "namespace",
  "memory_type",
  "tags",
  "created",
  "modified",
  "status",
];

describe("detail projections", () => {
  it("light carries identity and classification only, in a fixed order", () => {
    const record = toRecord(richMemory(), "light");
    expect(Object.keys(record)).toEqual(LIGHT_KEYS);
    expect(JSON.stringify(record)).not.toContain("PostgreSQL when several");
  });

  it("medium adds content, summary and the flattened confidence, no provenance", () => {
    const memory = richMemory();
    const record = toRecord(memory, "medium");
    expect(Object.keys(record)).toEqual([...LIGHT_KEYS, "content", "summary", "confidence"]);
    expect(record.confidence).toBe(0.92);
    expect(record.content).toBe(memory.content);
    expect("provenance" in record).toBe(false);
    const unknown = makeMemory({ confidence: null });
    expect(toRecord(unknown, "medium").confidence).toBeNull();
  });

  it("full is the whole memory, confidence only under provenance, leftovers last under extra", () => {
    const memory = richMemory();
    const record = toRecord(memory, "full");
    expect(record).toEqual({ ...memory, wiki_links: wikiLinks(memory.content) });
    expect(Object.keys(record).slice(0, 10)).toEqual([...LIGHT_KEYS, "content", "summary"]);
    expect("confidence" in record).toBe(false);
    expect(record.provenance.confidence).toBe(0.92);
    expect(Object.keys(record.provenance)).toEqual([
      "confidence",
      "trust_level",
      "source_type",
      "agent",
      "extra",
    ]);
    expect(Object.keys(record.temporal ?? {}).at(-1)).toBe("extra");
    expect(Object.keys(record.temporal?.decay ?? {})).toEqual([
      "model",
      "half_life",
      "current_strength",
      "extra",
    ]);
  });

  it("serializes the same memory to the same bytes whatever its key order", () => {
    const memory = richMemory();
    const shuffled = Object.fromEntries(Object.entries(memory).reverse()) as typeof memory;
    shuffled.provenance = Object.fromEntries(
      Object.entries(memory.provenance).reverse(),
    ) as typeof memory.provenance;
    for (const detail of ["light", "medium", "full"] as const) {
      expect(JSON.stringify(toRecord(shuffled, detail))).toBe(
        JSON.stringify(toRecord(memory, detail)),
      );
    }
  });

  it("drops an empty extra and keeps fields a newer model might add", () => {
    const memory = { ...makeMemory(), future_field: { a: 1 } };
    memory.provenance = { ...memory.provenance, extra: {} };
    const record = toRecord(memory, "full") as unknown as Record<string, unknown>;
    expect(Object.keys(record.provenance as object)).not.toContain("extra");
    expect(Object.keys(record).at(-1)).toBe("future_field");
  });

  it("does not share arrays with the memory (records can be changed safely)", () => {
    const memory = makeMemory({ tags: ["a"] });
    const record = toRecord(memory, "light");
    record.tags.push("b");
    expect(memory.tags).toEqual(["a"]);
  });

  it("full carries the specification's wiki_links after relationships; light and medium do not", () => {
    const memory = makeMemory({
      content:
        "See [[billing-runbook|the runbook]], [[Ledger#Rotation]] and ![[diagram.png]].\n" +
        "Again [[billing-runbook]]; not @[[SQLite|Technology]] nor `[[code]]`.\n" +
        "```\n[[fenced]]\n```\n",
    });
    const full = toRecord(memory, "full");
    expect(full.wiki_links).toEqual(["billing-runbook", "Ledger#Rotation", "diagram.png"]);
    const keys = Object.keys(full);
    expect(keys.indexOf("wiki_links")).toBe(keys.indexOf("relationships") + 1);
    expect("wiki_links" in toRecord(memory, "medium")).toBe(false);
    expect("wiki_links" in toRecord(memory, "light")).toBe(false);
    expect(toRecord(makeMemory({ content: "no links" }), "full").wiki_links).toEqual([]);
  });

  it.each(["light", "medium", "full"] as const)(
    "a %s record has line_schema's fields in line_schema's order (one definition for both)",
    (detail) => {
      const required = (memoryLineSchema(detail) as { required: string[] }).required;
      for (const memory of [richMemory(), makeMemory({})]) {
        expect(Object.keys(toRecord(memory, detail))).toEqual(required);
      }
    },
  );
});
