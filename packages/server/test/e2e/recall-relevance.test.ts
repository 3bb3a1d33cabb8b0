/**
 * A question's matches are its relevant few (issue 32 item 2), end to end on
 * both backends: the labelled set's corpus loaded with `capture_memories`
 * over the SDK's real Client (stdio), then "which note mentions the zephyrine
 * valve?" asked with `recall_memories` returns a handful of memories, the
 * three notes that mention the zephyrine valve first, inline (no file of
 * thousands of near misses). The relevance floor is the server's default.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BATCH_LIMITS } from "../../src/model/limits.js";
import { type LabelledSet, labelledCorpus } from "../../src/seed/labelled-set.js";
import { BACKENDS } from "../backends/backends.js";
import { call, jsonOf, type RunningServer, startServer } from "./spawn-server.js";

const set = JSON.parse(
  readFileSync(new URL("../fixtures/recall-quality.json", import.meta.url), "utf8"),
) as LabelledSet;

/** The titles of the memories that answer `queryId`. */
function answers(queryId: string): string[] {
  const ids = new Set(set.queries.find((q) => q.id === queryId)?.relevant);
  return set.planted.filter((p) => ids.has(p.id)).map((p) => p.title);
}

interface Page {
  count: number;
  total?: number;
  records: { title: string }[];
  summary?: unknown;
}

describe.each(BACKENDS)("recall returns the relevant few ($name)", (backend) => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer({ backend });
    const memories = labelledCorpus(set).map((m) => ({
      content: m.content,
      title: m.title,
      namespace: m.namespace,
      memory_type: m.memory_type,
      tags: m.tags,
    }));
    for (let i = 0; i < memories.length; i += BATCH_LIMITS.memories) {
      const result = await call(s.client, "capture_memories", {
        memories: memories.slice(i, i + BATCH_LIMITS.memories),
      });
      expect(result.isError).toBeFalsy();
    }
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it("which note mentions the zephyrine valve? -> a handful, the three right notes first", async () => {
    const notes = answers("zephyrine-question");
    expect(notes).toHaveLength(3);
    const page = jsonOf<Page>(
      await call(s.client, "recall_memories", {
        query: "which note mentions the zephyrine valve?",
        limit: 50,
        detail: "light",
      }),
    );
    expect(page.summary).toBeUndefined(); // inline: nothing offloaded
    expect(page.count).toBeGreaterThanOrEqual(3);
    expect(page.count).toBeLessThanOrEqual(6);
    expect(
      page.records
        .slice(0, 3)
        .map((r) => r.title)
        .sort(),
    ).toEqual([...notes].sort());
  });

  it("with the floor off (ATLATL_RECALL__RELEVANCE_FLOOR_PERCENT=0) the question matches every memory sharing a word", async () => {
    const unfloored = await startServer({
      storeArgs: s.storeArgs,
      env: { ATLATL_RECALL__RELEVANCE_FLOOR_PERCENT: "0" },
    });
    try {
      const body = jsonOf<{ count?: number; summary?: { count: number } }>(
        await call(unfloored.client, "recall_memories", {
          query: "which note mentions the zephyrine valve?",
          limit: 50,
          detail: "light",
        }),
      );
      expect(body.summary?.count ?? body.count).toBeGreaterThan(200);
    } finally {
      await unfloored.close();
    }
  });

  it("the punctuated forms find the same three notes first", async () => {
    const notes = [...answers("zephyrine-hyphen")].sort();
    for (const query of ["zephyrine-valve", "valve (zephyrine)"]) {
      for (const tool of ["recall_memories", "search_memories"]) {
        const page = jsonOf<Page>(
          await call(s.client, tool, { query, limit: 50, detail: "light" }),
        );
        expect(page.count, `${tool} ${query}`).toBeLessThanOrEqual(6);
        expect(
          page.records
            .slice(0, 3)
            .map((r) => r.title)
            .sort(),
          `${tool} ${query}`,
        ).toEqual(notes);
      }
    }
  });
});
