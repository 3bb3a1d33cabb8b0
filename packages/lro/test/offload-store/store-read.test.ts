/**
 * Reading anywhere through the shared reader: an instance without the file
 * fetches the caller's principal's copy, the parsed-file cache (one per
 * process, shared by principals) stays right when that copy is dropped and
 * fetched again, and never answers one principal with another's file.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { LroEvents } from "@atlatl/lro";
import { LroExtractor, Offloader, OffloadFileCache } from "@atlatl/lro/node";
import { afterEach, expect, it } from "vitest";
import { tempDir } from "../fixtures/helpers.js";
import { memoryOffloadStore } from "../fixtures/memory-offload-store.js";
import { makeMemories } from "../fixtures/memory-records.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
const config = { enabled: true, thresholdTokens: 100, ttlSeconds: 3600 };

it("re-fetches a dropped local copy and the shared cache answers each principal with its own file only", async () => {
  const shared = memoryOffloadStore();
  const a = tempDir("lro-read-a-");
  const b = tempDir("lro-read-b-");
  cleanups.push(a.cleanup, b.cleanup);
  const writer = new Offloader({
    config: { ...config, outputDir: join(a.dir, "alice") },
    events: new LroEvents({ sink: null }),
    store: { store: shared.handle(), principal: "alice" },
  });
  const written = await writer.offloadRecords({
    operation: "recall",
    query: null,
    detail: "full",
    records: makeMemories(120, 3),
  });
  if (written.kind !== "offloaded") throw new Error(written.kind);
  const name = written.file.path.split("/").at(-1) as string;

  // Instance B: one cache for the process, one extractor per principal.
  const cache = new OffloadFileCache();
  const on = (principal: string) =>
    new LroExtractor({
      config: { ...config, thresholdTokens: 1e9, outputDir: join(b.dir, principal) },
      cache,
      store: { store: shared.handle(), principal },
    });
  const alice = on("alice");
  const bob = on("bob");
  try {
    const first = await alice.extract({ file_path: name, query: ".id", limit: 3 });
    if (!first.ok) throw first.error;
    expect(shared.counts.fetches).toBe(1);
    // Bob asks for the same name: nothing of Alice's, from the disk, the cache or the store.
    const refused = await bob.extract({ file_path: name, query: ".id", limit: 3 });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.code).toBe("FILE_NOT_FOUND");

    // The local copy is a cache: dropped (as the sweeper does), fetched again, same answer.
    rmSync(join(b.dir, "alice", name));
    const again = await alice.extract({ file_path: name, query: ".id", limit: 3 });
    if (!again.ok) throw again.error;
    expect(shared.counts.fetches).toBe(2);
    expect(again.text).toBe(first.text);
    // Served from the local copy and the cache now: no third fetch.
    const recipe = await alice.extract({ file_path: name, recipe: 4 });
    expect(recipe.ok).toBe(true);
    expect(shared.counts.fetches).toBe(2);
  } finally {
    await alice.close();
    await bob.close();
  }
});
