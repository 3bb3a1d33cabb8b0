/**
 * The Profile contract: what the engine and every reader of an offload file
 * rely on, whatever the kind of result. Each built-in profile runs it
 * (`profiles.test.ts`); a profile of a user's own can run it the same way.
 *
 * - `normalizeDetail` answers every request and is idempotent;
 * - `project` is idempotent and yields JSON values;
 * - the file written through the engine: its header has the specification's
 *   eight fields first, then exactly `headerFields()`, names this profile
 *   (`headerProfileName`) and its schema version; each line is the record as
 *   `project` makes it, in order, one per record;
 * - the descriptor is JSON, says `offloaded: true`, names the file, and its
 *   guidance names the file; with a native extraction tool, it names the tool;
 * - every jq command the descriptor gives runs in bash + jq on that file.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type AnyProfile, headerProfileName } from "../../src/index.js";
import { Offloader } from "../../src/node.js";
import { recipeBash, recordingEvents, tempDir } from "../fixtures/helpers.js";

/** One profile under test and records typical of it. */
export interface ProfileCase {
  profile: AnyProfile;
  records: readonly object[];
  /** Detail levels the profile serves (the first is used for the file checks). */
  details: readonly (string | undefined)[];
}

const SPEC_HEADER_FIELDS = [
  "type",
  "operation",
  "query",
  "count",
  "schema_version",
  "timestamp",
  "estimated_tokens",
  "detail",
];

/** Every shell command a descriptor offers, whatever its shape. */
function commandsOf(descriptor: Record<string, unknown>): string[] {
  const recipes = descriptor.jq_recipes;
  if (Array.isArray(recipes)) return recipes.map((r) => (r as { command: string }).command);
  if (recipes && typeof recipes === "object") return Object.values(recipes) as string[];
  return [];
}

export function profileContract(name: string, make: () => ProfileCase): void {
  describe(`Profile contract: ${name}`, () => {
    const t = tempDir(`lro-contract-${name}-`);
    afterAll(() => t.cleanup());
    const { profile, records, details } = make();

    const offload = async (detail: string | undefined, nativeExtraction: string | false) => {
      const offloader = new Offloader({
        config: {
          enabled: true,
          thresholdTokens: 1,
          ttlSeconds: 3600,
          outputDir: join(t.dir, String(nativeExtraction)),
        },
        events: recordingEvents().events,
      });
      offloader.nativeExtraction = nativeExtraction;
      const result = await offloader.offloadRecords({
        operation: "search",
        query: "contract",
        detail,
        records,
        profile,
      });
      if (result.kind !== "offloaded") throw new Error(`expected an offload, got ${result.kind}`);
      return result;
    };

    it("normalizes every detail request, idempotently", () => {
      for (const detail of [...details, undefined, "no-such-level"]) {
        const normal = profile.normalizeDetail(detail);
        expect(typeof normal).toBe("string");
        expect(profile.normalizeDetail(normal)).toBe(normal);
      }
    });

    it("projects idempotently, to JSON values", () => {
      for (const detail of details) {
        const level = profile.normalizeDetail(detail);
        for (const record of records) {
          const once = profile.project(record, level);
          // A JSON value: it survives a round trip through its line unchanged.
          expect(JSON.parse(JSON.stringify(once))).toStrictEqual(
            Object.fromEntries(Object.entries(once).filter(([, v]) => v !== undefined)),
          );
          expect(JSON.stringify(profile.project(once, level))).toBe(JSON.stringify(once));
        }
      }
    });

    it.each(details.map((d) => [d ?? "(default)", d] as const))(
      "writes a file whose header names the profile and whose lines are the projected records (%s)",
      async (_label, detail) => {
        const { file } = await offload(detail, false);
        const lines = readFileSync(file.path, "utf8").split("\n");
        expect(lines.pop()).toBe("");
        const header = JSON.parse(lines[0] as string) as Record<string, unknown>;
        expect(Object.keys(header)).toEqual([
          ...SPEC_HEADER_FIELDS,
          ...Object.keys(profile.headerFields()),
        ]);
        expect(header).toMatchObject({
          type: "lro_header",
          operation: "search",
          query: "contract",
          count: records.length,
          schema_version: profile.schemaVersion,
          detail: profile.normalizeDetail(detail),
          ...profile.headerFields(),
        });
        expect(headerProfileName(header as never)).toBe(profile.name);
        const level = profile.normalizeDetail(detail);
        expect(lines.slice(1)).toEqual(
          records.map((r) => JSON.stringify(profile.project(r, level))),
        );
      },
    );

    it("describes the file: JSON, offloaded, naming the file in data, and guidance pointing at it", async () => {
      const { response, file } = await offload(details[0], false);
      const descriptor = JSON.parse(JSON.stringify(response)) as Record<string, unknown>;
      expect(descriptor).toEqual(response);
      expect(descriptor.offloaded).toBe(true);
      expect(JSON.stringify(descriptor)).toContain(JSON.stringify(file.path).slice(1, -1));
      // The path itself (F=<path>) or the field that holds it: a long path is not repeated.
      const guidance = descriptor.guidance as string;
      expect(guidance.includes(file.path) || guidance.includes("file_path")).toBe(true);
    });

    it("points its guidance to the native extraction tool when there is one", async () => {
      const { response } = await offload(details[0], "lro_extract");
      expect((response as { guidance: string }).guidance).toContain("lro_extract");
    });

    it("gives jq commands that run in bash + jq on the file", async () => {
      const { response } = await offload(details[0], false);
      const commands = commandsOf(response as Record<string, unknown>);
      expect(commands.length).toBeGreaterThan(0);
      for (const command of commands) {
        const r = recipeBash(response, command);
        expect(r.code, `${command}\n${r.stderr}`).toBe(0);
        expect(r.stderr, command).toBe("");
      }
    });
  });
}
