/**
 * The inline page of a whole set: a page made of the source's leading records
 * (`leadingOfSource`) is answered with the lines the boundary measured for
 * them, so each record is serialized once; any other page is serialized as it
 * comes.
 */
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { respond } from "../src/mcp.js";
import { Offloader, type SourceRecord } from "../src/node.js";
import { recordingEvents, tempDir } from "./fixtures/helpers.js";

const t = tempDir("lro-respond-page-");
afterAll(() => t.cleanup());

const offloader = new Offloader({
  config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 3600, outputDir: join(t.dir, "out") },
  events: recordingEvents().events,
});

// The source yields records whose keys come in one order; the page's copies of
// the same records list them in another, so the answer shows which were used.
const source = (): AsyncIterable<SourceRecord> =>
  (async function* () {
    for (const id of ["a", "b", "c"]) yield { record: { id, title: `t-${id}` } };
  })();
const pageRecords = [
  { title: "t-a", id: "a" },
  { title: "t-b", id: "b" },
];

async function pageText(leadingOfSource: boolean): Promise<string> {
  const result: CallToolResult = await respond(
    {
      operation: "list",
      records: [],
      profile: "records",
      whole: {
        source: source(),
        page: async () => ({ records: pageRecords, nextCursor: "c2", leadingOfSource }),
      },
    },
    { offloader },
  );
  return (result.content[0] as { text: string }).text;
}

describe("respond: the inline page of a whole set", () => {
  it("reuses the measured lines of the source's leading records", async () => {
    expect(await pageText(true)).toBe(
      '{"count":2,"total":3,"records":[{"id":"a","title":"t-a"},{"id":"b","title":"t-b"}],"next_cursor":"c2"}',
    );
  });

  it("serializes a page that is not the source's lead as it comes", async () => {
    expect(await pageText(false)).toBe(
      '{"count":2,"total":3,"records":[{"title":"t-a","id":"a"},{"title":"t-b","id":"b"}],"next_cursor":"c2"}',
    );
  });
});

describe("respond: a continuation (the page a cursor asked for)", () => {
  // Far above the threshold when judged: 200 records of ~400 characters.
  const big = Array.from({ length: 200 }, (_, i) => ({ id: `m${i}`, body: "x".repeat(400) }));

  it.each([
    ["auto", { mode: "auto" }],
    ["always", { mode: "always" }],
    ["whole-set-inline", { mode: "whole-set-inline" }],
  ] as const)("is never judged (%s): the page inline, with its cursor", async (_, policy) => {
    const result: CallToolResult = await respond(
      { operation: "list", records: big, profile: "records", nextCursor: "c3", continuation: true },
      { offloader, policy },
    );
    expect(result.structuredContent).toBeUndefined();
    const page = JSON.parse((result.content[0] as { text: string }).text);
    expect(page).toEqual({ count: 200, records: big, next_cursor: "c3" });
  });
});
