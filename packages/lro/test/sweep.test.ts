/**
 * Custodial cleanup with a controllable clock: only our expired files go;
 * other files and fresh files stay. Also the listing used for MCP resources.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { encodeTime } from "ulid";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type LroEvent, parseOffloadFileName } from "../src/index.js";
import { listOffloadFiles, Offloader, startSweeper, sweepOffloadDir } from "../src/node.js";
import { recordingEvents, tempDir } from "./fixtures/helpers.js";

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  vi.useRealTimers();
});

const HOUR = 3_600_000;
const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
const RANDOM = "ABCDEFGHJKMNPQRS";
const name = (op: string, at: number) => `atlatl-${op}-${encodeTime(at, 10)}${RANDOM}.jsonl`;
/** The content of an offload file of ours: the header line, then a record. */
const OURS = `${JSON.stringify({ type: "lro_header", operation: "recall", count: 1 })}\n{}\n`;
const writeOurs = (path: string) => writeFileSync(path, OURS);
/** The deletions only (a sweep also reports itself with OffloadSweepCompleted). */
const expiredEvents = (seen: LroEvent[]) => seen.filter((e) => e.type === "OffloadFileExpired");

function setup() {
  const t = tempDir("lro-sweep-");
  cleanup = t.cleanup;
  return t.dir;
}

describe("parseOffloadFileName", () => {
  it("reads operation and creation time from the ULID; rejects other names", () => {
    expect(parseOffloadFileName(name("recall", T0))).toEqual({
      operation: "recall",
      ulid: `${encodeTime(T0, 10)}${RANDOM}`,
      createdAt: T0,
      temporary: false,
    });
    expect(parseOffloadFileName(name("my-proxy_tool", T0))?.operation).toBe("my-proxy_tool");
    expect(
      parseOffloadFileName(`.atlatl-extract-${encodeTime(T0, 10)}${RANDOM}.123.tmp`),
    ).toMatchObject({ operation: "extract", temporary: true, createdAt: T0 });
    for (const other of [
      "atlatl-recall.jsonl",
      "atlatl-recall-notaulid.jsonl",
      `atlatl-recall-${encodeTime(T0, 10)}${RANDOM}.json`,
      `xatlatl-recall-${encodeTime(T0, 10)}${RANDOM}.jsonl`,
      `atlatl-recall-${encodeTime(T0, 10)}${RANDOM}.jsonl.bak`,
      "notes.txt",
    ]) {
      expect(parseOffloadFileName(other)).toBeNull();
    }
  });
});

describe("sweepOffloadDir", () => {
  it("deletes only expired files of our pattern, emitting OffloadFileExpired", async () => {
    const dir = setup();
    const expired = name("recall", T0 - 2 * HOUR);
    const exactlyDue = name("search", T0 - HOUR);
    const fresh = name("inject", T0 - HOUR + 1000);
    const future = name("list", T0 + HOUR);
    const others = ["notes.txt", "atlatl-recall-old.jsonl", "atlatl-export.jsonl", "foo.jsonl"];
    for (const f of [expired, exactlyDue, fresh, future, ...others]) writeOurs(join(dir, f));
    // An old file of someone else's naming, and a directory with our pattern: untouched.
    const ourNamedDir = name("list", T0 - 5 * HOUR);
    mkdirSync(join(dir, ourNamedDir));
    const { events, seen } = recordingEvents();

    const result = await sweepOffloadDir({ dir, ttlSeconds: 3600, now: () => T0, events });
    expect(result.expired.sort()).toEqual([join(dir, expired), join(dir, exactlyDue)].sort());
    expect(result.kept).toBe(2);
    expect(result.foreign).toBe(others.length + 1);
    expect(result.errors).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual([fresh, future, ...others, ourNamedDir].sort());
    expect(expiredEvents(seen)).toHaveLength(2);
    expect(seen.at(-1)).toEqual({
      type: "OffloadSweepCompleted",
      time: new Date(T0).toISOString(),
      dir,
      expired: 2,
      orphans: 0,
      kept: 2,
      foreign: others.length + 1,
      errors: 0,
    });
    expect(seen).toContainEqual({
      type: "OffloadFileExpired",
      time: new Date(T0).toISOString(),
      path: join(dir, expired),
      operation: "recall",
      created_at: new Date(T0 - 2 * HOUR).toISOString(),
      expired_at: new Date(T0 - HOUR).toISOString(),
      reason: "expired",
      bytes: Buffer.byteLength(OURS),
    });

    // Advancing the clock expires the fresh file next.
    const later = await sweepOffloadDir({ dir, ttlSeconds: 3600, now: () => T0 + 1000, events });
    expect(later.expired).toEqual([join(dir, fresh)]);
  });

  it("deletes orphaned temp files only after the grace period, judged by name and mtime", async () => {
    const dir = setup();
    const tmpOld = `.atlatl-recall-${encodeTime(T0 - HOUR, 10)}${RANDOM}.42.tmp`;
    const tmpYoung = `.atlatl-recall-${encodeTime(T0 - 60_000, 10)}${RANDOM}.42.tmp`;
    const tmpOldNameRecentWrite = `.atlatl-search-${encodeTime(T0 - HOUR, 10)}${RANDOM}.43.tmp`;
    // What a crash can leave: a header cut short, nothing, the streaming writer's blank slot.
    writeFileSync(join(dir, tmpOld), OURS.slice(0, 10));
    writeFileSync(join(dir, tmpYoung), "");
    writeFileSync(join(dir, tmpOldNameRecentWrite), `${" ".repeat(40)}\n{}\n`);
    utimesSync(join(dir, tmpOld), (T0 - HOUR) / 1000, (T0 - HOUR) / 1000);
    utimesSync(join(dir, tmpYoung), (T0 - 60_000) / 1000, (T0 - 60_000) / 1000);
    utimesSync(join(dir, tmpOldNameRecentWrite), T0 / 1000, T0 / 1000);
    const result = await sweepOffloadDir({ dir, ttlSeconds: 3600, now: () => T0 });
    expect(result.orphans).toEqual([join(dir, tmpOld)]);
    expect(readdirSync(dir).sort()).toEqual([tmpOldNameRecentWrite, tmpYoung].sort());
  });

  it("never follows or deletes through a symlink, and treats a missing directory as empty", async () => {
    const dir = setup();
    const outside = join(dir, "outside.txt");
    writeFileSync(outside, "keep");
    const link = name("recall", T0 - 5 * HOUR);
    symlinkSync(outside, join(dir, link));
    const result = await sweepOffloadDir({ dir, ttlSeconds: 3600, now: () => T0 });
    expect(result.expired).toEqual([]);
    expect(existsSync(outside)).toBe(true);
    expect(await sweepOffloadDir({ dir: join(dir, "missing"), ttlSeconds: 1 })).toEqual({
      expired: [],
      orphans: [],
      kept: 0,
      foreign: 0,
      errors: [],
    });
  });
});

describe("listOffloadFiles", () => {
  it("lists live files oldest first with operation, times and size; expired only on request", async () => {
    const dir = setup();
    const a = name("recall", T0 - 30 * 60_000);
    const b = name("extract", T0 - 10 * 60_000);
    const old = name("search", T0 - 2 * HOUR);
    writeFileSync(join(dir, b), "12345");
    writeFileSync(join(dir, a), "1");
    writeFileSync(join(dir, old), "");
    writeFileSync(join(dir, "other.jsonl"), "");
    writeFileSync(join(dir, `.atlatl-recall-${encodeTime(T0, 10)}${RANDOM}.1.tmp`), "");
    const files = await listOffloadFiles(dir, { ttlSeconds: 3600, now: () => T0 });
    expect(files).toEqual([
      {
        path: join(dir, a),
        name: a,
        operation: "recall",
        createdAt: T0 - 30 * 60_000,
        expiresAt: T0 + 30 * 60_000,
        bytes: 1,
      },
      {
        path: join(dir, b),
        name: b,
        operation: "extract",
        createdAt: T0 - 10 * 60_000,
        expiresAt: T0 + 50 * 60_000,
        bytes: 5,
      },
    ]);
    const all = await listOffloadFiles(dir, {
      ttlSeconds: 3600,
      now: () => T0,
      includeExpired: true,
    });
    expect(all.map((f) => f.name)).toEqual([old, a, b]);
    expect(await listOffloadFiles(join(dir, "nope"), { ttlSeconds: 1 })).toEqual([]);
  });
});

describe("startSweeper", () => {
  it("sweeps at start-up, every interval on an unref'd timer, and on demand", async () => {
    const dir = setup();
    let now = T0;
    const clock = () => now;
    writeOurs(join(dir, name("recall", T0 - 2 * HOUR)));
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const { events, seen } = recordingEvents();
    const sweeper = startSweeper({ dir, ttlSeconds: 3600, now: clock, events, intervalMs: HOUR });
    // The start-up sweep runs at once.
    await vi.waitFor(() => expect(expiredEvents(seen)).toHaveLength(1));

    // A file created now expires an hour later; the hourly timer picks it up.
    const second = name("search", T0);
    writeOurs(join(dir, second));
    now = T0 + HOUR;
    await vi.advanceTimersByTimeAsync(HOUR);
    await vi.waitFor(() => expect(expiredEvents(seen)).toHaveLength(2));
    expect(expiredEvents(seen)[1]).toMatchObject({ path: join(dir, second) });

    writeOurs(join(dir, name("list", T0)));
    const onDemand = await sweeper.sweepNow();
    expect(onDemand.expired).toHaveLength(1);
    sweeper.stop();
    writeOurs(join(dir, name("inject", T0)));
    await vi.advanceTimersByTimeAsync(5 * HOUR);
    expect(expiredEvents(seen)).toHaveLength(3);
  });

  it("uses an unref'd timer so it never keeps the process alive", () => {
    const dir = setup();
    const spy = vi.spyOn(globalThis, "setInterval");
    const sweeper = startSweeper({ dir, ttlSeconds: 3600, runAtStart: false });
    const timer = spy.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    sweeper.stop();
    spy.mockRestore();
  });

  it("an Offloader's sweeper covers its own files with its own clock and TTL", async () => {
    const dir = setup();
    let now = T0;
    const { events, seen } = recordingEvents();
    const o = new Offloader({
      config: { enabled: true, thresholdTokens: 10, ttlSeconds: 60, outputDir: dir },
      events,
      now: () => now,
    });
    const r = await o.offloadRecords({
      operation: "recall",
      detail: "light",
      records: [{ id: "x", title: "t".repeat(200), namespace: "n", tags: [] }],
    });
    if (r.kind !== "offloaded") throw new Error("expected offload");
    expect(r.file.createdAt).toBe(T0);
    expect(parseOffloadFileName(r.file.path.slice(dir.length + 1))?.createdAt).toBe(T0);
    const sweeper = o.startSweeper({ runAtStart: false });
    expect((await sweeper.sweepNow()).expired).toEqual([]);
    now = T0 + 60_000;
    expect((await sweeper.sweepNow()).expired).toEqual([r.file.path]);
    sweeper.stop();
    expect(seen.map((e) => e.type)).toEqual([
      "OffloadCreated",
      "OffloadSweepCompleted",
      "OffloadFileExpired",
      "OffloadSweepCompleted",
    ]);
  });
});
