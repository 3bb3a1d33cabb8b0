/**
 * The `line_schema` agents see describes the corpus lines exactly: every line
 * of every frozen corpus, and every record line of the file the agent is
 * pointed at, validates against it (no field it requires is missing, no field
 * a line has is undeclared), checked with a real JSON Schema validator.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conditionById } from "../src/conditions/conditions.js";
import { corpusFile, DEFAULT_SCALES, FROZEN_DATA_DIR, loadCorpus } from "../src/corpus/freeze.js";
import { CORPUS_LINE_SCHEMA } from "../src/corpus/line-schema.js";
import { createSandbox } from "../src/sandbox/sandbox.js";
import { createEnvironment } from "../src/tools/environment.js";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "atlatl-eval-schema-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function validator(schema: object) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

describe("the descriptor's line_schema", () => {
  it.each(DEFAULT_SCALES)(
    "at n=%i validates every frozen corpus line and every record line of the offload file",
    async (scale) => {
      const corpus = await loadCorpus(scale);
      const env = await createEnvironment(conditionById("e2-c1") as never, corpus.records, {
        sandbox: createSandbox("auto"),
        timeoutMs: 5000,
        root,
      });
      try {
        const descriptor = JSON.parse((await env.call("list_memories", {})).content);
        const schema = descriptor.line_schema as { required: string[]; properties: object };
        const validate = validator(schema);
        const frozen = (await readFile(join(FROZEN_DATA_DIR, corpusFile(scale)), "utf8"))
          .trimEnd()
          .split("\n");
        const offloaded = (await readFile(descriptor.file_path, "utf8"))
          .trimEnd()
          .split("\n")
          .slice(1);
        expect(frozen).toHaveLength(scale);
        expect(offloaded).toHaveLength(scale);
        for (const line of [...frozen, ...offloaded]) {
          const ok = validate(JSON.parse(line));
          expect(ok ? "valid" : JSON.stringify(validate.errors)).toBe("valid");
        }
        // Exactly the lines' keys: what E4 filters on is declared, nothing absent is required.
        const keys = Object.keys(JSON.parse(frozen[0] as string)).sort();
        expect([...schema.required].sort()).toEqual(keys);
        expect(Object.keys(schema.properties).sort()).toEqual(keys);
        expect(JSON.stringify(schema)).toContain('"priority"');
      } finally {
        await env.close();
      }
    },
  );

  it("rejects a line with a field the corpus lines lack, or without one they have", async () => {
    const validate = validator(CORPUS_LINE_SCHEMA);
    const [line] = (await loadCorpus(50)).records;
    expect(validate(line)).toBe(true);
    expect(validate({ ...line, aliases: [] })).toBe(false);
    const { extensions: _, ...withoutExtensions } = line as NonNullable<typeof line>;
    expect(validate(withoutExtensions)).toBe(false);
    expect(validate({ ...line, extensions: { priority: "high" } })).toBe(false);
  });
});
