/**
 * The offload store contract: one suite every implementation runs (the local
 * file system, the in-memory test store, PostgreSQL in the server package).
 * It drives the real engine: an `Offloader` bound to the store writes on
 * "instance A", the confined reader and `LroExtractor` read on "instance B".
 * B is another disk when the store is shared, A's own disk when it is not
 * (a local store serves one instance). The engine is imported by its package
 * name, as the server's store imports it, so both sides share one copy of the
 * error classes: rebuild `@atlatl/lro` (dist) after changing its sources.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { isLroError, LroEvents } from "@atlatl/lro";
import {
  LroExtractor,
  nodeOffloadFs,
  Offloader,
  type OffloadFs,
  type OffloadStore,
  openOffloadFile,
  sweepOffloadDir,
} from "@atlatl/lro/node";
import { afterEach, beforeEach, expect, it } from "vitest";
import { recordingEvents, tempDir } from "../fixtures/helpers.js";
import { makeMemories } from "../fixtures/memory-records.js";

/** A store under test, opened fresh for each test. */
export interface OpenedStore {
  store: OffloadStore;
  /** Another handle onto the same data (a restarted instance's). */
  again(): Promise<OffloadStore>;
  /** Remove what the test created (after every handle is closed). */
  cleanup(): Promise<void>;
}

/** An implementation and how to open it. */
export interface OffloadStoreTarget {
  name: string;
  /** A fresh, empty store (its data private to the test). */
  open(options: { quotaBytes?: number }): Promise<OpenedStore>;
  /** Files are shared between instances (`OffloadStore.shared`). */
  shared: boolean;
  /** Whether the store refuses a principal's files past a quota. */
  quota: boolean;
}

const TTL_SECONDS = 60;

interface Instance {
  root: string;
  store: OffloadStore;
}

/** The engine of `principal` on `instance`, its files in the principal's own directory. */
function offloaderOn(
  instance: Instance,
  principal: string,
  extra: { now?: () => number; fs?: OffloadFs; onTempOpened?: (p: string) => void } = {},
) {
  const { events, seen } = recordingEvents();
  const offloader = new Offloader({
    config: {
      enabled: true,
      thresholdTokens: 100,
      ttlSeconds: TTL_SECONDS,
      outputDir: join(instance.root, principal),
    },
    events,
    store: { store: instance.store, principal },
    ...extra,
  });
  return { offloader, seen };
}

/** Open `name` as `principal` on `instance` (fetching it from a shared store) and read it whole. */
async function readOn(instance: Instance, principal: string, name: string): Promise<Buffer> {
  const file = await openOffloadFile(name, {
    outputDir: join(instance.root, principal),
    ttlSeconds: TTL_SECONDS,
    store: { store: instance.store, principal },
  });
  try {
    return await file.handle.readFile();
  } finally {
    await file.handle.close();
  }
}

/** Offload `n` memory records as `principal` on `instance`; the file's name and bytes. */
async function offload(instance: Instance, principal: string, n: number, now?: () => number) {
  const { offloader } = offloaderOn(instance, principal, now ? { now } : {});
  const r = await offloader.offloadRecords({
    operation: "recall",
    query: null,
    detail: "full",
    records: makeMemories(n, n),
  });
  if (r.kind !== "offloaded") throw new Error(`expected an offload, got ${r.kind}`);
  return { name: basename(r.file.path), bytes: readFileSync(r.file.path) };
}

/** Offload files and temporaries in a directory. */
function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n.includes("atlatl-"));
  } catch {
    return [];
  }
}

/** Declare the contract's tests for `target`. */
export function offloadStoreContract(target: OffloadStoreTarget): void {
  let opened: OpenedStore;
  let a: Instance;
  let b: Instance;
  const cleanups: (() => unknown)[] = [];

  const setup = async (options: { quotaBytes?: number } = {}) => {
    opened = await target.open(options);
    const ta = tempDir("lro-store-a-");
    cleanups.push(ta.cleanup);
    a = { root: ta.dir, store: opened.store };
    expect(opened.store.shared).toBe(target.shared);
    if (target.shared) {
      const tb = tempDir("lro-store-b-");
      cleanups.push(tb.cleanup);
      b = { root: tb.dir, store: await opened.again() };
    } else {
      b = a;
    }
  };
  beforeEach(() => {
    cleanups.length = 0;
  });
  afterEach(async () => {
    if (b.store !== a.store) await b.store.close();
    await a.store.close();
    await opened.cleanup();
    for (const c of cleanups) c();
  });

  it(`${target.name}: a file written on A reads back byte-identical on B, small and multi-chunk`, async () => {
    await setup();
    for (const n of [40, 5000]) {
      const written = await offload(a, "alice", n);
      const read = await readOn(b, "alice", written.name);
      expect(read.length).toBe(written.bytes.length);
      expect(read.equals(written.bytes)).toBe(true);
    }
  });

  it(`${target.name}: extraction on B answers as on A`, async () => {
    await setup();
    const written = await offload(a, "alice", 300);
    const extract = async (on: Instance) => {
      const extractor = new LroExtractor({
        config: {
          outputDir: join(on.root, "alice"),
          ttlSeconds: TTL_SECONDS,
          thresholdTokens: 1e9,
        },
        store: { store: on.store, principal: "alice" },
      });
      try {
        return await extractor.extract({ file_path: written.name, query: ".id", slurp: false });
      } finally {
        await extractor.close();
      }
    };
    const onB = await extract(b);
    const onA = await extract(a);
    if (!onB.ok) throw onB.error;
    if (!onA.ok) throw onA.error;
    expect(onB.count).toBe(300);
    expect([onB.text, onB.engine, onB.total]).toEqual([onA.text, onA.engine, onA.total]);
  });

  it(`${target.name}: a reader racing the writer sees the file absent or complete`, async () => {
    await setup();
    let name: string | undefined;
    const { offloader } = offloaderOn(a, "alice", {
      onTempOpened: (p) => {
        name = basename(p).replace(/^\.(.*)\.\d+\.tmp$/, "$1.jsonl");
      },
    });
    const writing = offloader.offloadRecords({
      operation: "recall",
      query: null,
      detail: "full",
      records: makeMemories(8000, 8),
    });
    let done = false;
    void writing.finally(() => {
      done = true;
    });
    const seen: (Buffer | "absent")[] = [];
    while (!done || seen.length === 0 || seen.at(-1) === "absent") {
      if (name) {
        try {
          seen.push(await readOn(b, "alice", name));
        } catch (err) {
          if (!isLroError(err, "FILE_NOT_FOUND")) throw err;
          seen.push("absent");
        }
      }
      await new Promise((r) => setImmediate(r));
      if (done && seen.length > 1000) break;
    }
    const r = await writing;
    if (r.kind !== "offloaded") throw new Error(r.kind);
    const complete = readFileSync(r.file.path);
    const reads = seen.filter((s): s is Buffer => s !== "absent");
    expect(reads.length).toBeGreaterThan(0);
    for (const got of reads) expect(got.equals(complete)).toBe(true);
  });

  it(`${target.name}: a principal never reads another's file, on either instance`, async () => {
    await setup();
    const written = await offload(a, "alice", 40);
    for (const on of [a, b]) {
      await expect(readOn(on, "bob", written.name)).rejects.toMatchObject({
        code: "FILE_NOT_FOUND",
      });
    }
    expect(await a.store.fetch({ principal: "bob", name: written.name })).toBeUndefined();
    expect(filesIn(join(b.root, "bob"))).toEqual([]);
  });

  if (target.quota) {
    it(`${target.name}: a publish past the principal's quota is refused with a coded error naming the setting, leaving no file`, async () => {
      const first = 60;
      // Room for one file of `first` records and not two.
      const probe = makeMemories(first, first)
        .map((m) => JSON.stringify(m))
        .join("\n").length;
      await setup({ quotaBytes: Math.round(probe * 1.5) });
      const kept = await offload(a, "alice", first);
      const { offloader, seen } = offloaderOn(a, "alice");
      const r = await offloader.offloadRecords({
        operation: "recall",
        query: null,
        detail: "full",
        records: makeMemories(first, first + 1),
      });
      if (r.kind !== "truncated") throw new Error(`expected a refusal, got ${r.kind}`);
      expect(r.error.code).toBe("OFFLOAD_QUOTA_EXCEEDED");
      expect(r.error.message).toContain("offload_store.quota_bytes");
      // The caller is told why and which setting, not only a code.
      expect(r.warning).toMatch(/\(OFFLOAD_QUOTA_EXCEEDED: .*offload_store\.quota_bytes/);
      expect(seen.map((e) => e.type)).toEqual(["OffloadWriteFailed"]);
      expect(seen[0]).toMatchObject({ code: "OFFLOAD_QUOTA_EXCEEDED" });
      // Nothing of the refused file, here or in the store; the first one intact.
      expect(filesIn(join(a.root, "alice"))).toEqual([kept.name]);
      expect((await readOn(b, "alice", kept.name)).equals(kept.bytes)).toBe(true);
      // Another principal's quota is its own.
      await offload(a, "bob", first);
    });
  }

  it(`${target.name}: each expired file is swept exactly once by two instances racing`, async () => {
    await setup();
    const T0 = Date.now();
    const expired: string[] = [];
    for (const principal of ["alice", "bob"]) {
      for (let i = 0; i < 3; i++) {
        expired.push(`${principal}/${(await offload(a, principal, 30 + i, () => T0)).name}`);
      }
    }
    const live = await offload(a, "alice", 33, () => T0 + 50_000);
    const at = T0 + (TTL_SECONDS + 1) * 1000;
    const sweepOn = async (on: Instance): Promise<string[]> => {
      if (on.store.shared) {
        return (await on.store.sweep(at)).map((k) => `${k.principal}/${k.name}`);
      }
      const names: string[] = [];
      for (const principal of ["alice", "bob"]) {
        const events = new LroEvents({ sink: null });
        events.on("OffloadFileExpired", (e) => names.push(`${principal}/${basename(e.path)}`));
        await sweepOffloadDir({
          dir: join(on.root, principal),
          ttlSeconds: TTL_SECONDS,
          now: () => at,
          events,
          fs: nodeOffloadFs,
        });
      }
      return names;
    };
    const [onA, onB] = await Promise.all([sweepOn(a), sweepOn(b)]);
    const all = [...onA, ...onB];
    expect(all.toSorted()).toEqual(expired.toSorted());
    expect(new Set(all).size).toBe(all.length);
    // The live file stays readable everywhere.
    expect((await readOn(b, "alice", live.name)).equals(live.bytes)).toBe(true);
    // A second round finds nothing.
    expect([...(await sweepOn(a)), ...(await sweepOn(b))]).toEqual([]);
  });

  it(`${target.name}: after a restart a completed file is there and a failed write left nothing`, async () => {
    await setup();
    const written = await offload(a, "alice", 200);
    // A write that fails half-way (the disk filling up): no file, nothing published.
    let writes = 0;
    const failing: OffloadFs = {
      ...nodeOffloadFs,
      writeNewFileSync(path, data, mode) {
        throw Object.assign(new Error(`ENOSPC writing ${path} (${data.length}, ${mode})`), {
          code: "ENOSPC",
        });
      },
      async open(path, flags, mode) {
        const handle = await nodeOffloadFs.open(path, flags, mode);
        return {
          write: async (data, position) => {
            if (++writes > 1) throw Object.assign(new Error("ENOSPC"), { code: "ENOSPC" });
            return handle.write(data, position);
          },
          close: () => handle.close(),
        };
      },
    };
    let failedName: string | undefined;
    const { offloader } = offloaderOn(a, "alice", {
      fs: failing,
      onTempOpened: (p) => {
        failedName = basename(p).replace(/^\.(.*)\.\d+\.tmp$/, "$1.jsonl");
      },
    });
    const r = await offloader.offloadRecords({
      operation: "recall",
      query: null,
      detail: "full",
      records: makeMemories(8000, 9),
    });
    expect(r.kind).toBe("truncated");
    expect(failedName).toBeDefined();
    // Restart: every handle closed, a new one opened on the same data.
    const restarted: Instance = { root: b.root, store: await opened.again() };
    try {
      expect((await readOn(restarted, "alice", written.name)).equals(written.bytes)).toBe(true);
      await expect(readOn(restarted, "alice", failedName as string)).rejects.toMatchObject({
        code: "FILE_NOT_FOUND",
      });
      expect(filesIn(join(a.root, "alice"))).toEqual([written.name]);
    } finally {
      if (restarted.store !== a.store) await restarted.store.close();
    }
  });

  // Nothing is published to a store that is not shared: the write above is the whole story.
  if (target.shared) {
    it(`${target.name}: B lists the principal's live files A wrote, newest first; another principal's and expired ones never`, async () => {
      await setup();
      const T0 = Date.now();
      const older = await offload(a, "alice", 30, () => T0);
      const newer = await offload(a, "alice", 31, () => T0 + 5_000);
      await offload(a, "bob", 32, () => T0 + 6_000);
      const info = (f: { name: string; bytes: Buffer }, createdAt: number) => ({
        name: f.name,
        size: f.bytes.length,
        createdAt,
        expiresAt: createdAt + TTL_SECONDS * 1000,
      });
      expect(await b.store.list("alice", T0 + 10_000)).toEqual([
        info(newer, T0 + 5_000),
        info(older, T0),
      ]);
      expect((await b.store.list("bob", T0 + 10_000)).map((f) => f.name)).not.toContain(older.name);
      expect(await b.store.list("carol", T0 + 10_000)).toEqual([]);
      // The older file's time to live has ended: it is no longer listed, even unswept.
      expect(await b.store.list("alice", T0 + TTL_SECONDS * 1000)).toEqual([
        info(newer, T0 + 5_000),
      ]);
    });

    it(`${target.name}: a publish that fails part-way keeps nothing`, async () => {
      await setup();
      const name = "atlatl-recall-01KAZZZZZZZZZZZZZZZZZZZZZZ.jsonl";
      async function* halfThenFail() {
        yield Buffer.alloc(3 << 20, 0x61);
        throw new Error("the writer died");
      }
      await expect(
        a.store.publish({
          principal: "alice",
          name,
          size: 6 << 20,
          createdAt: Date.now(),
          expiresAt: Date.now() + 3_600_000,
          chunks: halfThenFail(),
        }),
      ).rejects.toMatchObject({ code: "OFFLOAD_STORE_FAILED" });
      expect(await b.store.fetch({ principal: "alice", name })).toBeUndefined();
    });
  }
}
