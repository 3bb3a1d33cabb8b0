/**
 * A memory descriptor's `line_schema` says exactly what its file's lines
 * carry (issue 27 §9): `required` is the fields every line has, in line order,
 * at each detail level, whatever records the producer handed over. A
 * producer's record of ten fields at `full` detail (the record as it came)
 * once got the twenty fields of an atlatl memory as required.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DETAIL_LEVELS, MEMORY_RECORD_FIELDS } from "../../src/index.js";
import { Offloader } from "../../src/node.js";
import { recordingEvents, tempDir } from "../fixtures/helpers.js";

const t = tempDir("lro-line-schema-");
afterAll(() => t.cleanup());

const offloader = new Offloader({
  config: { enabled: true, thresholdTokens: 200, ttlSeconds: 3600, outputDir: join(t.dir, "out") },
  events: recordingEvents().events,
});

/** A producer's memories: ten fields, one of them only on every other record, one not MIF's. */
const records = Array.from({ length: 120 }, (_, i) => ({
  id: `m-${i}`,
  title: `Note ${i}`,
  namespace: "_semantic/notes",
  memory_type: "semantic",
  tags: [`t${i % 3}`],
  created: "2026-01-01T00:00:00.000Z",
  modified: "2026-01-02T00:00:00.000Z",
  content: `note ${i} ${"about the harbor ".repeat(4)}`,
  priority: i % 5,
  ...(i % 2 === 0 ? { summary: `summary ${i}` } : {}),
}));

/** The keys every line has, in the first line's order. */
function carriedByAll(lines: readonly Record<string, unknown>[]): string[] {
  const [first, ...rest] = lines;
  return Object.keys(first ?? {}).filter((k) => rest.every((line) => k in line));
}

describe("line_schema of a memory file", () => {
  it.each(DETAIL_LEVELS)("requires exactly the fields every %s line carries", async (detail) => {
    const result = await offloader.offloadRecords({ operation: "list", detail, records });
    if (result.kind !== "offloaded") throw new Error(`expected an offload, got ${result.kind}`);
    const lines = readFileSync(result.file.path, "utf8")
      .trimEnd()
      .split("\n")
      .slice(1)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(records.length);
    const schema = result.response.line_schema as { type: string; required: string[] };
    expect(schema.type).toBe("object");
    // Every line is valid against the schema, and the schema claims nothing more.
    for (const line of lines)
      for (const field of schema.required) expect(line).toHaveProperty(field);
    expect(schema.required).toEqual(carriedByAll(lines));
    // Never a field the level does not put in a line (full: the record as it came).
    if (detail !== "full") {
      for (const field of schema.required) expect(MEMORY_RECORD_FIELDS[detail]).toContain(field);
    }
  });
});
