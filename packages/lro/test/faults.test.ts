/**
 * Fault handling: an unwritable directory, a write error mid-file, a symlinked
 * output directory and a SIGKILL during a large write. Each gives the specified
 * fallback (inline, truncated to the threshold, with a warning) or refusal, the
 * `OffloadWriteFailed` event, and never a partial `atlatl-*.jsonl`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type LroEvent, OFFLOAD_FILE_PATTERN, OFFLOAD_TEMP_PATTERN } from "../src/index.js";
import { nodeOffloadFs, Offloader, type OffloadFs, sweepOffloadDir } from "../src/node.js";
import { recordingEvents, tempDir } from "./fixtures/helpers.js";
import { makeMemories } from "./fixtures/memory-records.js";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, "../../..");
const childScript = join(here, "fixtures/offload-child.ts");

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function dir(): string {
  const t = tempDir("lro-faults-");
  cleanups.push(t.cleanup);
  return t.dir;
}

const T = 1600;
const config = (outputDir: string) => ({
  enabled: true,
  thresholdTokens: T,
  ttlSeconds: 3600,
  outputDir,
});

/** The inline payload a client receives on fallback must itself fit the threshold. */
function fallbackPayloadTokens(lines: string[], total: number, warning: string): number {
  const text =
    `{"count":${lines.length},"records":[${lines.join(",")}],"truncated":true,` +
    `"total_count":${total},"warning":${JSON.stringify(warning)}}`;
  return Math.ceil(text.length / 4);
}

function ourFiles(d: string): string[] {
  return readdirSync(d).filter((n) => OFFLOAD_FILE_PATTERN.test(n) || OFFLOAD_TEMP_PATTERN.test(n));
}

function runChild(args: string[], asNobody: boolean): ChildProcess {
  return spawn(process.execPath, ["--conditions=source", "--import", "tsx", childScript, ...args], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
    ...(asNobody ? { uid: 65534, gid: 65534 } : {}),
  });
}

function collect(
  child: ChildProcess,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => {
    stdout += d;
  });
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  return new Promise((res) => child.on("close", (code) => res({ code, stdout, stderr })));
}

describe("write failures fall back to a truncated inline result", () => {
  it("a write error injected mid-file: truncated inline, warning, event, temp file removed", async () => {
    const d = dir();
    const { events, seen } = recordingEvents();
    let writes = 0;
    let tempPath = "";
    const failing: OffloadFs = {
      ...nodeOffloadFs,
      async open(path, flags, mode) {
        tempPath = path;
        const handle = await nodeOffloadFs.open(path, flags, mode);
        return {
          async write(data, position) {
            writes++;
            if (writes === 3) {
              throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
                code: "ENOSPC",
              });
            }
            return handle.write(data, position);
          },
          close: () => handle.close(),
        };
      },
    };
    const o = new Offloader({ config: config(d), events, fs: failing });
    // ~3 MB of records: header, then several 1 MiB chunks; the second chunk fails.
    const records = makeMemories(4000);
    const r = await o.offloadRecords({ operation: "search", query: "q", detail: "full", records });
    expect(writes).toBe(3);
    expect(tempPath).not.toBe("");
    expect(r.kind).toBe("truncated");
    if (r.kind !== "truncated") return;
    expect(r.total).toBe(4000);
    expect(r.lines.length).toBeGreaterThan(0);
    expect(r.lines.length).toBeLessThan(4000);
    expect(r.records).toHaveLength(r.lines.length);
    expect(r.lines.map((l) => JSON.parse(l))).toEqual(records.slice(0, r.lines.length));
    expect(r.warning).toMatch(/failed/);
    expect(r.warning).toMatch(/truncated/);
    expect(r.warning).toContain(`${r.lines.length} of 4000`);
    expect(r.error.code).toBe("WRITE_FAILED");
    expect(fallbackPayloadTokens(r.lines, r.total, r.warning)).toBeLessThanOrEqual(T);
    // The greedy cut is tight: one more record would not have fit.
    const oneMore = makeMemories(4000)
      .slice(0, r.lines.length + 1)
      .map((m) => JSON.stringify(m));
    expect(fallbackPayloadTokens(oneMore, r.total, r.warning)).toBeGreaterThan(T - 30);

    expect(seen).toHaveLength(1);
    const e = seen[0] as Extract<LroEvent, { type: "OffloadWriteFailed" }>;
    expect(e).toMatchObject({
      type: "OffloadWriteFailed",
      operation: "search",
      code: "ENOSPC",
      count: 4000,
    });
    expect(dirname(e.path ?? "")).toBe(d);
    expect(basename(e.path ?? "")).toMatch(OFFLOAD_FILE_PATTERN);
    expect(e.error).toContain("no space left");
    expect(ourFiles(d)).toEqual([]);
  });

  it("a short write (as when a disk fills up) is resumed: the file is complete", async () => {
    const d = dir();
    const { events, seen } = recordingEvents();
    let shortWrites = 0;
    const stingy: OffloadFs = {
      ...nodeOffloadFs,
      async open(path, flags, mode) {
        const handle = await nodeOffloadFs.open(path, flags, mode);
        return {
          async write(data, position) {
            // Write only the first half of every string chunk, as write(2) may.
            if (typeof data === "string") {
              shortWrites++;
              const bytes = Buffer.from(data, "utf8");
              return handle.write(bytes.subarray(0, Math.floor(bytes.length / 2)), position);
            }
            return handle.write(data, position);
          },
          close: () => handle.close(),
        };
      },
    };
    const records = makeMemories(3000);
    const o = new Offloader({ config: config(d), events, fs: stingy });
    const r = await o.offloadRecords({ operation: "recall", detail: "full", records });
    if (r.kind !== "offloaded") throw new Error(`expected offload, got ${r.kind}`);
    expect(shortWrites).toBeGreaterThan(1);
    const text = readFileSync(r.file.path, "utf8");
    expect(Buffer.byteLength(text)).toBe(r.file.bytes);
    const lines = text.trimEnd().split("\n");
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(records);
    expect(seen.map((e) => e.type)).toEqual(["OffloadCreated"]);
  });

  it("a failing rename leaves neither the temp file nor a live file", async () => {
    const d = dir();
    const { events, seen } = recordingEvents();
    const erofs = () =>
      Object.assign(new Error("EROFS: read-only file system, rename"), { code: "EROFS" });
    const failing: OffloadFs = {
      ...nodeOffloadFs,
      rename: async () => {
        throw erofs();
      },
      renameSync: () => {
        throw erofs();
      },
    };
    const o = new Offloader({ config: config(d), events, fs: failing });
    const r = await o.offloadRecords({
      operation: "recall",
      detail: "light",
      records: makeMemories(300),
    });
    expect(r.kind).toBe("truncated");
    expect(seen.map((e) => [e.type, (e as { code?: string }).code])).toEqual([
      ["OffloadWriteFailed", "EROFS"],
    ]);
    expect(ourFiles(d)).toEqual([]);
  });

  it("a small result (written synchronously) failing mid-write: truncated inline, event, no file left", async () => {
    const d = dir();
    const { events, seen } = recordingEvents();
    let attempted = "";
    const failing: OffloadFs = {
      ...nodeOffloadFs,
      writeNewFileSync(path, data, mode) {
        attempted = path;
        // Half the bytes reach the disk, then the device is full.
        nodeOffloadFs.writeNewFileSync(path, data.subarray(0, data.length >> 1), mode);
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
          code: "ENOSPC",
        });
      },
    };
    const o = new Offloader({ config: config(d), events, fs: failing });
    const records = makeMemories(300);
    const r = await o.offloadRecords({ operation: "list", detail: "full", records });
    expect(attempted).not.toBe("");
    expect(r.kind).toBe("truncated");
    if (r.kind !== "truncated") return;
    expect(r.total).toBe(300);
    expect(r.lines.map((l) => JSON.parse(l))).toEqual(records.slice(0, r.lines.length));
    expect(fallbackPayloadTokens(r.lines, r.total, r.warning)).toBeLessThanOrEqual(T);
    expect(seen.map((e) => [e.type, (e as { code?: string }).code])).toEqual([
      ["OffloadWriteFailed", "ENOSPC"],
    ]);
    expect(readdirSync(d)).toEqual([]);
  });

  it("an unwritable output directory (real permissions, in a child process)", async () => {
    const parent = dir();
    const d = join(parent, "locked");
    mkdirSync(d);
    chmodSync(parent, 0o755);
    chmodSync(d, 0o555);
    // Root ignores permission bits: run the child as `nobody` then.
    const asNobody = process.getuid?.() === 0;
    const out = await collect(runChild(["offload", d, "300"], asNobody));
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout) as {
      kind: string;
      kept: number;
      warning: string;
      events: LroEvent[];
    };
    expect(result.kind).toBe("truncated");
    expect(result.kept).toBeGreaterThan(0);
    expect(result.warning).toContain("EACCES");
    expect(result.events.map((e) => e.type)).toEqual(["OffloadWriteFailed"]);
    expect(result.events[0]).toMatchObject({ code: "EACCES", count: 300 });
    expect(readdirSync(d)).toEqual([]);
  }, 30_000);

  it("an output directory that cannot be created falls back too", async () => {
    const d = dir();
    const blocker = join(d, "a-file");
    writeFileSync(blocker, "x");
    const { events, seen } = recordingEvents();
    const o = new Offloader({ config: config(join(blocker, "sub")), events });
    const r = await o.offloadRecords({
      operation: "recall",
      detail: "light",
      records: makeMemories(300),
    });
    expect(r.kind).toBe("truncated");
    if (r.kind === "truncated") expect(r.error.code).toBe("OUTPUT_DIR_UNUSABLE");
    expect(seen[0]).toMatchObject({ type: "OffloadWriteFailed" });
  });
});

describe("a symlinked output directory", () => {
  it("is refused (OUTPUT_DIR_SYMLINK): nothing written behind it, fallback and event", async () => {
    const d = dir();
    const target = join(d, "target");
    mkdirSync(target, { mode: 0o700 });
    const link = join(d, "link");
    symlinkSync(target, link);
    const { events, seen } = recordingEvents();
    const o = new Offloader({ config: config(link), events });
    const r = await o.offloadRecords({
      operation: "recall",
      detail: "medium",
      records: makeMemories(300),
    });
    expect(r.kind).toBe("truncated");
    if (r.kind !== "truncated") return;
    expect(r.error.code).toBe("OUTPUT_DIR_SYMLINK");
    expect(r.warning).toContain("OUTPUT_DIR_SYMLINK");
    expect(seen).toEqual([
      expect.objectContaining({
        type: "OffloadWriteFailed",
        code: "OUTPUT_DIR_SYMLINK",
        count: 300,
      }),
    ]);
    expect(readdirSync(target)).toEqual([]);
  });
});

describe("a process killed during a large write", () => {
  it("leaves no partial atlatl-*.jsonl; the sweeper removes the orphaned temp file", async () => {
    const d = dir();
    const child = runChild(["stall", d, "20000"], false);
    const done = collect(child);
    const tempPath = await new Promise<string>((res, rej) => {
      let buf = "";
      child.stdout?.on("data", (chunk) => {
        buf += chunk;
        const m = /^MID (.+)$/m.exec(buf);
        if (m) res(m[1] as string);
      });
      child.on("close", () => rej(new Error(`child ended before the write: ${buf}`)));
    });
    child.kill("SIGKILL");
    const out = await done;
    expect(out.code).toBeNull();
    // The kill happened mid-write: a partial temp file, under a name no reader globs.
    const names = readdirSync(d);
    expect(names).toEqual([tempPath.slice(d.length + 1)]);
    expect(names[0]).toMatch(OFFLOAD_TEMP_PATTERN);
    expect(names.filter((n) => /^atlatl-.*\.jsonl$/.test(n))).toEqual([]);
    expect(statSync(tempPath).size).toBeGreaterThan(1 << 20);
    expect(statSync(tempPath).mode & 0o777).toBe(0o600);

    // Within the grace period the sweeper leaves it (a writer may still be at it) ...
    const { events, seen } = recordingEvents();
    const early = await sweepOffloadDir({ dir: d, ttlSeconds: 3600, events });
    expect(early.orphans).toEqual([]);
    // ... after it, the orphan goes.
    const later = Date.now() + 16 * 60 * 1000;
    const swept = await sweepOffloadDir({ dir: d, ttlSeconds: 3600, events, now: () => later });
    expect(swept.orphans).toEqual([tempPath]);
    expect(seen.filter((e) => e.type === "OffloadFileExpired")).toEqual([
      expect.objectContaining({
        type: "OffloadFileExpired",
        reason: "orphan",
        path: tempPath,
        operation: null,
      }),
    ]);
    expect(readdirSync(d)).toEqual([]);
  }, 30_000);
});
