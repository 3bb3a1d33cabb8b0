import { describe, expect, it } from "vitest";
import { convertJsonValue } from "../../src/mif/convert.js";
import { decodeCursor, encodeCursor, fingerprint } from "../../src/model/cursor.js";
import { DERIVED_TITLE_CHARS, deriveTitle } from "../../src/model/defaults.js";
import { buildMemory, isProblem } from "../../src/model/new-memory.js";

describe("deriveTitle", () => {
  it("takes the first non-blank line without Markdown marks", () => {
    expect(deriveTitle("\n\n## Use **Postgres** for `shared` stores\nbody")).toBe(
      "Use Postgres for shared stores",
    );
    expect(deriveTitle("- first bullet\n- second")).toBe("first bullet");
    expect(deriveTitle("   \n  ")).toBe("Untitled memory");
  });

  it("cuts long lines on a word boundary with an ellipsis", () => {
    const title = deriveTitle(`${"word ".repeat(40)}end`);
    expect(title.length).toBeLessThanOrEqual(DERIVED_TITLE_CHARS);
    expect(title.endsWith("word…")).toBe(true);
  });
});

describe("cursors", () => {
  it("round-trip a position for the same kind and fingerprint", () => {
    const print = fingerprint({ query: "x", filter: { status: "active" } });
    const cursor = encodeCursor("list", print, { k: 5, i: "abc" });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, "list", print)).toEqual({ position: { k: 5, i: "abc" } });
  });

  it("fingerprints ignore key order and undefined members", () => {
    expect(fingerprint({ a: 1, b: { c: 2, d: undefined } })).toBe(
      fingerprint({ b: { c: 2 }, a: 1 }),
    );
    expect(fingerprint({ a: 1 })).not.toBe(fingerprint({ a: 2 }));
  });

  it("refuse other kinds, other arguments and garbage with a message", () => {
    const cursor = encodeCursor("recall", "fp1", { s: 0.5, i: "x" });
    expect(decodeCursor(cursor, "search", "fp1")).toMatchObject({ field: "cursor" });
    expect(decodeCursor(cursor, "recall", "fp2")).toMatchObject({
      message: expect.stringMatching(/different query/),
    });
    expect(decodeCursor("not a cursor!", "recall", "fp1")).toMatchObject({ field: "cursor" });
    expect(decodeCursor("e30", "recall", "fp1")).toMatchObject({ field: "cursor" });
  });
});

describe("one rule for derived titles and namespaces", () => {
  const content =
    "Notes from the call, see [[billing-runbook|the runbook]].\n\n# Move [billing](http://x) to the ledger service\n\nBody.";

  it("a memory captured and the same memory imported get the same title and namespace", async () => {
    const captured = buildMemory({ content, memory_type: "episodic" });
    if (isProblem(captured)) throw new Error(captured.message);
    const imported = convertJsonValue({
      "@context": "https://mif-spec.dev/schema/context.jsonld",
      "@type": "Memory",
      "@id": "urn:mif:same",
      memoryType: "episodic",
      content,
      created: "2026-01-01T00:00:00Z",
    });
    if (!imported.ok) throw new Error(imported.message);
    expect(imported.memory.title).toBe(captured.title);
    expect(imported.memory.namespace).toBe(captured.namespace);
    expect(captured.title).toBe("Move billing to the ledger service");
    expect(captured.namespace).toBe("_episodic/general");
  });

  it("takes wiki-link labels and cuts at the same length either way", () => {
    expect(deriveTitle("See [[target-note|the label]] and [[other]]")).toBe(
      "See the label and other",
    );
    const long = `# ${"heading ".repeat(30)}`;
    expect(deriveTitle(long).length).toBeLessThanOrEqual(DERIVED_TITLE_CHARS);
  });
});
