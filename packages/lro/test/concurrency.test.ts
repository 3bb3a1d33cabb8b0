/** 200 concurrent offloads: 200 distinct, complete, valid files. */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { decodeTime } from "ulid";
import { afterAll, expect, it } from "vitest";
import { OFFLOAD_FILE_PATTERN, type OffloadHeader, parseOffloadFileName } from "../src/index.js";
import { offloadIdFactory } from "../src/materialize/file-name.js";
import { Offloader } from "../src/node.js";
import { recordingEvents, tempDir } from "./fixtures/helpers.js";
import { makeMemories } from "./fixtures/memory-records.js";

const t = tempDir("lro-concurrency-");
afterAll(() => t.cleanup());

it("200 concurrent offloads produce 200 distinct, complete, valid files", async () => {
  const outputDir = join(t.dir, "out");
  const { events, seen } = recordingEvents();
  const o = new Offloader({
    config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 3600, outputDir },
    events,
  });
  const base = makeMemories(40);
  const sets = Array.from({ length: 200 }, (_, k) =>
    base.map((m, i) => ({ ...m, id: `call-${k}-rec-${i}` })),
  );
  const results = await Promise.all(
    sets.map((records, k) =>
      o.offloadRecords({
        operation: k % 2 ? "recall" : "search",
        query: `q${k}`,
        detail: "full",
        records,
      }),
    ),
  );
  const paths = results.map((r) => {
    if (r.kind !== "offloaded") throw new Error(`call ended ${r.kind}`);
    return r.response.file_path;
  });
  expect(new Set(paths).size).toBe(200);
  const names = readdirSync(outputDir).sort();
  expect(names).toHaveLength(200);
  expect(names).toEqual(paths.map((p) => basename(p)).sort());
  for (const [k, path] of paths.entries()) {
    expect(basename(path)).toMatch(OFFLOAD_FILE_PATTERN);
    expect(parseOffloadFileName(basename(path))?.operation).toBe(k % 2 ? "recall" : "search");
    const lines = readFileSync(path, "utf8").split("\n");
    expect(lines.pop()).toBe("");
    const header = JSON.parse(lines[0] as string) as OffloadHeader;
    expect(header).toMatchObject({ type: "lro_header", query: `q${k}`, count: 40 });
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(sets[k]);
  }
  expect(seen.filter((e) => e.type === "OffloadCreated")).toHaveLength(200);
});

it("file ids are distinct and ordered within one millisecond and carry the clock's time", () => {
  const next = offloadIdFactory();
  const at = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
  // More than one 4 KiB pool of random bytes (16 per id) is drawn.
  const ids = Array.from({ length: 1000 }, () => next(at));
  expect(new Set(ids).size).toBe(1000);
  expect([...ids].sort()).toEqual(ids);
  for (const id of ids) expect(decodeTime(id)).toBe(at);
  const later = next(at + 1);
  expect(decodeTime(later)).toBe(at + 1);
  expect(later > (ids.at(-1) as string)).toBe(true);
  // Fresh randomness for a new millisecond: two factories do not agree.
  expect(offloadIdFactory()(at + 5).slice(10)).not.toBe(offloadIdFactory()(at + 5).slice(10));
});
