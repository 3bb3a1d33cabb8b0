/**
 * LRO judges the whole result set, not the page `limit` asks for (issue 9 §1,
 * spec "Relationship to Pagination"): through the SDK's real Client against
 * `atlatl serve`, every match lands in the file, `summary.count` is the total,
 * a shell count of the file answers right, ranked files keep rank order, a
 * file capped by `prompt.offload.max_records` says so, and inline pages say
 * how many matches there are.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { OffloadResponse } from "@atlatl/lro";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toRecord } from "../../src/model/detail.js";
import { createServices } from "../../src/services/create-services.js";
import { openSqliteStore } from "../../src/store/sqlite/open-sqlite.js";
import { makeMemory } from "../store/fixtures.js";
import { call, jsonOf, type RunningServer, startServer } from "./spawn-server.js";

const TOTAL = 457;
/** Memories 0..299 mention "harbor" (in the title for every fourth); the rest do not. */
const HARBOR = 300;
const MODIFIED = "2025-06-01T00:00:00.000Z";

function corpus() {
  return Array.from({ length: TOTAL }, (_, i) => {
    const harbor = i < HARBOR;
    return makeMemory({
      title: harbor && i % 4 === 0 ? `Harbor pilot note ${i}` : `Field note ${i}`,
      content: harbor
        ? `Entry ${i}: the harbor crew ${"logged tides and ".repeat(1 + (i % 5))}went home.`
        : `Entry ${i}: an inland survey of hills and roads.`,
      namespace: i % 3 === 0 ? "_episodic/voyages" : "_semantic/ports",
      memory_type: i % 3 === 0 ? "episodic" : "semantic",
      tags: i % 50 === 0 ? [`crew-${i % 6}`, "flagship"] : [`crew-${i % 6}`],
      // Equal recency for all: rank order does not depend on the clock of a walk.
      created: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
      modified: MODIFIED,
      confidence: ((i * 7) % 10) / 10,
    });
  });
}

/** One corpus (fixture ids count up per call), seeded into each server's database. */
const CORPUS = corpus();

async function seed(dbPath: string): Promise<void> {
  const store = await openSqliteStore({ path: dbPath });
  try {
    await store.upsertMany(CORPUS);
  } finally {
    await store.close();
  }
}

/** Record lines of an offload file, parsed (line 1, the header, left out). */
function recordsOf(path: string): { id: string }[] {
  const lines = readFileSync(path, "utf8").trimEnd().split("\n");
  return lines.slice(1).map((l) => JSON.parse(l) as { id: string });
}

function headerOf(path: string): { count: number } {
  return JSON.parse(readFileSync(path, "utf8").split("\n")[0] as string);
}

/** What an agent would run to count the memories in the file. */
function shellCount(path: string): number {
  const r = spawnSync("bash", ["-c", `tail -n +2 "$1" | wc -l`, "count", path], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return Number(r.stdout.trim());
}

type Descriptor = OffloadResponse & { next_cursor?: unknown };

describe("LRO over the whole result set (SDK Client, atlatl serve)", () => {
  let s: RunningServer;
  let capped: RunningServer;

  beforeAll(async () => {
    s = await startServer({ beforeStart: ({ dbPath }) => seed(dbPath) });
    capped = await startServer({
      beforeStart: ({ dbPath }) => seed(dbPath),
      env: { ATLATL_PROMPT__OFFLOAD__MAX_RECORDS: "120" },
    });
  }, 60_000);

  afterAll(async () => {
    await s?.close();
    await capped?.close();
  });

  it("list_memories {} offloads all 457 memories, in list order, with no cursor", async () => {
    const result = await call(s.client, "list_memories", {});
    expect(result.isError).toBeFalsy();
    const d = jsonOf<Descriptor>(result);
    expect(d.offloaded).toBe(true);
    expect(d.next_cursor).toBeUndefined();
    expect(d.summary.count).toBe(TOTAL);
    expect(d.capped).toBeUndefined();
    expect(headerOf(d.file_path).count).toBe(TOTAL);
    const ids = recordsOf(d.file_path).map((r) => r.id);
    // Default order: created desc.
    expect(ids).toEqual(CORPUS.map((m) => m.id).reverse());
    expect(shellCount(d.file_path)).toBe(TOTAL);
  });

  it("a recall matching 300 with limit 20 offloads all 300, in the order of the paged walk", async () => {
    const result = await call(s.client, "recall_memories", { query: "harbor", limit: 20 });
    const d = jsonOf<Descriptor>(result);
    expect(d.offloaded).toBe(true);
    expect(d.next_cursor).toBeUndefined();
    expect(d.summary.count).toBe(HARBOR);
    expect(shellCount(d.file_path)).toBe(HARBOR);
    const [low, high] = d.summary.score_range ?? [0, 0];
    expect(low).toBeLessThan(high);

    // The service's own paged walk over the same database is the rank order.
    const store = await openSqliteStore({ path: s.dbPath });
    try {
      const recall = createServices(store).recall;
      const walked: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await recall.recall({ query: "harbor", limit: 37, cursor });
        walked.push(...page.hits.map((h) => h.memory.id));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      expect(walked).toHaveLength(HARBOR);
      expect(recordsOf(d.file_path).map((r) => r.id)).toEqual(walked);
    } finally {
      await store.close();
    }
  });

  it("search_memories offloads every match; inject_context its pre-budget set, the top `limit`", async () => {
    const search = jsonOf<Descriptor>(
      await call(s.client, "search_memories", { query: "harbor", limit: 5 }),
    );
    expect(search.summary.count).toBe(HARBOR);
    expect(shellCount(search.file_path)).toBe(HARBOR);

    const inject = jsonOf<Descriptor>(
      await call(s.client, "inject_context", { query: "harbor", limit: 1000 }),
    );
    expect(inject.offloaded).toBe(true);
    expect(inject.summary).toMatchObject({ count: HARBOR, operation: "inject", detail: "medium" });
    expect(shellCount(inject.file_path)).toBe(HARBOR);
    // inject has no cursor: `limit` bounds the set judged, not a page of it.
    const top = jsonOf<Descriptor>(
      await call(s.client, "inject_context", { query: "harbor", limit: 40, detail: "full" }),
    );
    expect(top.summary).toMatchObject({ count: 40, operation: "inject" });
    expect(shellCount(top.file_path)).toBe(40);
  });

  it("each offloaded line is the memory's record at the asked detail, byte for byte", async () => {
    const byId = new Map(CORPUS.map((m) => [m.id, m]));
    /** The file's record lines, and the lines the canonical projection makes of the corpus. */
    function lines(path: string, detail: "light" | "medium" | "full") {
      const got = readFileSync(path, "utf8").trimEnd().split("\n").slice(1);
      const want = got.map((l) => {
        const memory = byId.get((JSON.parse(l) as { id: string }).id);
        if (!memory) throw new Error(`unknown id in ${l.slice(0, 80)}`);
        return JSON.stringify(toRecord(memory, detail));
      });
      return { got, want };
    }
    // Light sets are read light from the store (no content, no document).
    for (const tool of ["list_memories", "recall_memories", "search_memories"]) {
      const args = tool === "list_memories" ? {} : { query: "harbor", detail: "light" };
      const d = jsonOf<Descriptor>(await call(s.client, tool, args));
      const { got, want } = lines(d.file_path, "light");
      expect(got.length, tool).toBeGreaterThanOrEqual(HARBOR);
      expect(got, tool).toEqual(want);
    }
    for (const detail of ["medium", "full"] as const) {
      const d = jsonOf<Descriptor>(
        await call(s.client, "recall_memories", { query: "harbor", detail }),
      );
      const { got, want } = lines(d.file_path, detail);
      expect(got).toHaveLength(HARBOR);
      expect(got).toEqual(want);
    }
  });

  it("every offloaded line validates against the descriptor's line_schema, which requires exactly what the lines carry", async () => {
    const ajv = new Ajv2020();
    for (const detail of ["light", "medium", "full"] as const) {
      const d = jsonOf<Descriptor>(
        await call(s.client, "recall_memories", { query: "harbor", detail }),
      );
      const schema = d.line_schema as { required: string[] };
      const valid = ajv.compile(schema);
      const lines = readFileSync(d.file_path, "utf8")
        .trimEnd()
        .split("\n")
        .slice(1)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toHaveLength(HARBOR);
      for (const line of lines) expect(valid(line), JSON.stringify(valid.errors)).toBe(true);
      // Exactly: every line has these fields and no more (none it would lack is claimed).
      for (const line of lines) expect(Object.keys(line), detail).toEqual(schema.required);
    }
  });

  it("recall without a query recalls everything (query is optional)", async () => {
    const result = await call(s.client, "recall_memories", {});
    expect(result.isError).toBeFalsy();
    const d = jsonOf<Descriptor>(result);
    expect(d.summary.count).toBe(TOTAL);
  });

  it("below the threshold: the inline page carries its cursor and the total", async () => {
    type Page = {
      count: number;
      total: number;
      records: { id: string }[];
      next_cursor: string | null;
    };
    // Flagship memories: every 50th (10); with "pilot" in the title, every 100th below 300 (3).
    const narrow = { query: "pilot", tags: ["flagship"], limit: 2 };
    const first = jsonOf<Page>(await call(s.client, "recall_memories", narrow));
    expect(first).toMatchObject({ count: 2, total: 3, next_cursor: expect.any(String) });
    const second = jsonOf<Page>(
      await call(s.client, "recall_memories", { ...narrow, cursor: first.next_cursor }),
    );
    // A continuation is a page of the walk the first page counted: not read whole again.
    expect(second).toMatchObject({ count: 1, next_cursor: null });
    expect(second).not.toHaveProperty("total");
    expect(new Set([...first.records, ...second.records].map((r) => r.id)).size).toBe(3);

    const listed = jsonOf<Page>(
      await call(s.client, "list_memories", { tags: ["flagship"], limit: 4 }),
    );
    expect(listed).toMatchObject({ count: 4, total: 10, next_cursor: expect.any(String) });
  });

  it("a set larger than max_records is capped, and the descriptor says so plainly", async () => {
    const result = await call(capped.client, "list_memories", {});
    const d = jsonOf<Descriptor>(result);
    expect(d.offloaded).toBe(true);
    expect(d.summary.count).toBe(120);
    expect(shellCount(d.file_path)).toBe(120);
    expect(headerOf(d.file_path).count).toBe(120);
    expect(d.capped).toMatchObject({
      total_matches: TOTAL,
      records_in_file: 120,
      max_records: 120,
    });
    expect(d.capped?.note).toContain(`first 120 of ${TOTAL}`);
    expect(d.guidance).toContain(`${TOTAL} records match, the file holds the first 120`);
    expect(d.guidance).toMatch(/narrow/);
    // The first 120 of the list order.
    expect(recordsOf(d.file_path).map((r) => r.id)).toEqual(
      CORPUS.map((m) => m.id)
        .reverse()
        .slice(0, 120),
    );
  });
});
