/**
 * The parsed-file cache: keyed by file version (a rewritten file is read
 * again), bounded by count and by memory (parsed records weigh more), and the
 * header / body split that extraction and resources rely on.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openOffloadFile } from "../../src/extract/confine.js";
import { OffloadFileCache } from "../../src/extract/offload-reader.js";
import { writeOffloadFixture } from "./memory-fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "atlatl-reader-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function load(cache: OffloadFileCache, path: string) {
  const opened = await openOffloadFile(path, { outputDir: dir, ttlSeconds: 3600 });
  try {
    return await cache.load(opened, 1 << 30);
  } finally {
    await opened.handle.close();
  }
}

describe("OffloadFileCache", () => {
  it("returns the cached file for the same version and re-reads a rewritten one", async () => {
    const cache = new OffloadFileCache();
    const f = writeOffloadFixture(dir, [{ id: "a" }], { detail: "light" });
    const first = await load(cache, f.path);
    expect(await load(cache, f.path)).toBe(first);
    expect(first.header).toMatchObject({ type: "lro_header", count: 1 });
    expect(first.body.toString()).toBe('{"id":"a"}\n');
    writeFileSync(f.path, `${first.headerLine}\n{"id":"b"}\n{"id":"c"}\n`);
    const second = await load(cache, f.path);
    expect(second).not.toBe(first);
    expect(second.fast()?.records).toEqual([{ id: "b" }, { id: "c" }]);
  });

  it("keeps at most maxEntries files, least recently used out first", async () => {
    const cache = new OffloadFileCache({ maxEntries: 2 });
    const files = [1, 2, 3].map(
      (i) => writeOffloadFixture(dir, [{ id: i }], { detail: "light" }).path,
    );
    const a = await load(cache, files[0] as string);
    await load(cache, files[1] as string);
    await load(cache, files[2] as string);
    expect(await load(cache, files[0] as string)).not.toBe(a);
  });

  it("weighs parsed records more than raw bytes", async () => {
    const records = Array.from({ length: 200 }, (_, i) => ({
      id: `id-${i}`,
      title: "x".repeat(50),
    }));
    const f = writeOffloadFixture(dir, records, { detail: "light" });
    const cache = new OffloadFileCache({ maxBytes: 10 * 1024 * 1024 });
    const loaded = await load(cache, f.path);
    const raw = cache.weight;
    expect(raw).toBe(loaded.body.length);
    expect(loaded.fast()?.records).toHaveLength(200);
    expect(cache.weight).toBe(raw * 5);
  });

  it("does not parse files above maxParseBytes (jq answers them)", async () => {
    const f = writeOffloadFixture(dir, [{ id: "a" }, { id: "b" }], { detail: "light" });
    const cache = new OffloadFileCache({ maxParseBytes: 4 });
    expect((await load(cache, f.path)).fast()).toBeNull();
  });
});
