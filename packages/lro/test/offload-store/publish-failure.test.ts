/**
 * A file published to the shared store whose local rename then fails is an
 * offload that failed: the store keeps nothing of it (no other instance can
 * serve it, it does not count against the quota), small (synchronous) and
 * streamed files alike.
 */
import { readdirSync } from "node:fs";
import { LroEvents } from "@atlatl/lro";
import { nodeOffloadFs, Offloader, type OffloadFs } from "@atlatl/lro/node";
import { afterEach, expect, it } from "vitest";
import { tempDir } from "../fixtures/helpers.js";
import { memoryOffloadStore } from "../fixtures/memory-offload-store.js";
import { makeMemories } from "../fixtures/memory-records.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const renameFails = (err: () => Error): OffloadFs => ({
  ...nodeOffloadFs,
  rename: async () => {
    throw err();
  },
  renameSync: () => {
    throw err();
  },
});

it.each([
  ["small", 40],
  ["streamed", 8000],
])("a %s file published and then not renamed leaves nothing in the store", async (_, n) => {
  const shared = memoryOffloadStore({ quotaBytes: 64 << 20 });
  const t = tempDir("lro-publish-fail-");
  cleanups.push(t.cleanup);
  let name: string | undefined;
  const offloader = new Offloader({
    config: { enabled: true, thresholdTokens: 100, ttlSeconds: 3600, outputDir: t.dir },
    events: new LroEvents({ sink: null }),
    fs: renameFails(() => Object.assign(new Error("EIO: rename failed"), { code: "EIO" })),
    store: { store: shared.handle(), principal: "alice" },
    onTempOpened: (p) => {
      name = p
        .split("/")
        .at(-1)
        ?.replace(/^\.(.*)\.\d+\.tmp$/, "$1.jsonl");
    },
  });
  const r = await offloader.offloadRecords({
    operation: "recall",
    query: null,
    detail: "full",
    records: makeMemories(n, 5),
  });
  expect(r.kind).toBe("truncated");
  expect(name).toBeDefined();
  expect(await shared.handle().fetch({ principal: "alice", name: name as string })).toBeUndefined();
  expect(readdirSync(t.dir)).toEqual([]);
  // Nothing of it is charged: the whole quota is still there.
  await shared.handle().publish({
    principal: "alice",
    name: "atlatl-recall-01KB0000000000000000000009.jsonl",
    size: 64 << 20,
    createdAt: Date.now(),
    expiresAt: Date.now() + 60_000,
    chunks: [Buffer.alloc(64 << 20)],
  });
});
