/**
 * The hostile trial of the sweeper: an output directory shared with the user's
 * own files, some named exactly like ours. The sweeper deletes only what it
 * wrote (name, owner, one link, our header) and counts the rest as foreign.
 */
import { spawnSync } from "node:child_process";
import {
  chownSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import { encodeTime } from "ulid";
import { afterEach, describe, expect, it } from "vitest";
import { LroEvents } from "../src/index.js";
import { Offloader, sweepOffloadDir } from "../src/node.js";
import { recordingEvents, tempDir } from "./fixtures/helpers.js";

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const HOUR = 3_600_000;
const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
const ulidAt = (at: number, tail = "ABCDEFGHJKMNPQRS") => `${encodeTime(at, 10)}${tail}`;

function setup(): string {
  const t = tempDir("lro-shared-");
  cleanup = t.cleanup;
  return t.dir;
}

/** Two expired offload files of ours, written by the real engine two hours ago. */
async function writeOurs(dir: string): Promise<string[]> {
  const o = new Offloader({
    config: { enabled: true, thresholdTokens: 10, ttlSeconds: 3600, outputDir: dir },
    now: () => T0 - 2 * HOUR,
    events: new LroEvents({ sink: null }),
  });
  const paths: string[] = [];
  for (const operation of ["recall", "search"]) {
    const r = await o.offloadRecords({
      operation,
      detail: "light",
      records: [{ id: "x", title: "t".repeat(200), namespace: "n", tags: [] }],
    });
    if (r.kind !== "offloaded") throw new Error("expected an offload");
    paths.push(r.file.path);
  }
  return paths;
}

describe("sweeping a directory shared with the user's files", () => {
  it("deletes none of the user's files, however they are named; only ours", async () => {
    const dir = setup();
    const [ourExpired, ourLinked] = (await writeOurs(dir)) as [string, string];
    // The user keeps one of our files under a name of their own (a hard link).
    linkSync(ourLinked, join(dir, "keep-this-result.jsonl"));

    const old = T0 - 5 * HOUR;
    const user: Record<string, string> = {
      // Named exactly like offload files, expired by their ULIDs.
      [`atlatl-recall-${ulidAt(old, "0000000000000001")}.jsonl`]: "my own notes\n",
      [`atlatl-search-${ulidAt(old, "0000000000000002")}.jsonl`]: '{"id":1}\n{"id":2}\n',
      [`atlatl-list-${ulidAt(old, "0000000000000003")}.jsonl`]: "",
      [`atlatl-export-${ulidAt(old, "0000000000000004")}.jsonl`]: '{"type":"lro_headers"}\n',
      // Our header's prefix, but not a header line.
      [`atlatl-inject-${ulidAt(old, "0000000000000005")}.jsonl`]: '{"type":"lro_header", oops\n',
      [`atlatl-my_tool-${ulidAt(old, "0000000000000006")}.jsonl`]: "\u0000\u0001binary",
      // An old temporary name holding the user's draft.
      [`.atlatl-recall-${ulidAt(old, "0000000000000007")}.123.tmp`]: "draft, not a header\n",
      [`.atlatl-search-${ulidAt(old, "0000000000000008")}.9.tmp`]: "   spaces then text",
      // Other names.
      "notes.txt": "keep me\n",
      "data.jsonl": '{"a":1}\n',
      "atlatl-export.jsonl": '{"type":"lro_header","operation":"x"}\n',
      "atlatl-recall.jsonl": "x\n",
      ".atlatl-config.tmp": "x\n",
    };
    for (const [name, text] of Object.entries(user)) writeFileSync(join(dir, name), text);
    // A user file hard-linked under a name like ours.
    const linkedName = `atlatl-recall-${ulidAt(old, "0000000000000009")}.jsonl`;
    linkSync(join(dir, "notes.txt"), join(dir, linkedName));
    // A symlink named like ours, pointing at a user file; a directory named like ours.
    const symlinkName = `atlatl-list-${ulidAt(old, "000000000000000A")}.jsonl`;
    symlinkSync(join(dir, "data.jsonl"), join(dir, symlinkName));
    const dirName = `atlatl-list-${ulidAt(old, "000000000000000B")}.jsonl`;
    mkdirSync(join(dir, dirName));
    const fifoName = `atlatl-list-${ulidAt(old, "000000000000000C")}.jsonl`;
    expect(spawnSync("mkfifo", [join(dir, fifoName)]).status).toBe(0);
    for (const name of Object.keys(user)) utimesSync(join(dir, name), old / 1000, old / 1000);
    const userEntries = [
      ...Object.keys(user),
      "keep-this-result.jsonl",
      linkedName,
      symlinkName,
      dirName,
      fifoName,
    ];
    expect(userEntries.length).toBeGreaterThanOrEqual(15);

    const { events, seen } = recordingEvents();
    const result = await sweepOffloadDir({ dir, ttlSeconds: 3600, now: () => T0, events });

    expect(result.expired).toEqual([ourExpired]);
    expect(result.orphans).toEqual([]);
    expect(result.errors).toEqual([]);
    // Every user entry, and our file the user linked to, is left alone and counted.
    expect(result.foreign).toBe(userEntries.length + 1);
    expect(existsSync(ourExpired)).toBe(false);
    expect(existsSync(ourLinked)).toBe(true);
    for (const [name, text] of Object.entries(user)) {
      expect(readFileSync(join(dir, name), "utf8"), name).toBe(text);
    }
    for (const name of [linkedName, symlinkName, dirName, fifoName, "keep-this-result.jsonl"]) {
      expect(existsSync(join(dir, name)), name).toBe(true);
    }
    expect(seen.filter((e) => e.type === "OffloadFileExpired")).toHaveLength(1);
    expect(seen.at(-1)).toMatchObject({
      type: "OffloadSweepCompleted",
      expired: 1,
      foreign: userEntries.length + 1,
    });
  });

  it("deletes an attachment only with its record and content; a user's file named like one survives", async () => {
    const dir = setup();
    const o = new Offloader({
      config: { enabled: true, thresholdTokens: 10, ttlSeconds: 3600, outputDir: dir },
      now: () => T0 - 2 * HOUR,
      events: new LroEvents({ sink: null }),
    });
    const png = Buffer.from("\x89PNG\r\n\x1a\n our image bytes", "latin1");
    const ours = await o.writeAttachment({ operation: "shot", data: png, mimeType: "image/png" });
    const replaced = await o.writeAttachment({
      operation: "shot",
      data: png,
      mimeType: "image/png",
    });
    // The user overwrote one of ours in place with their own bytes of the same size.
    writeFileSync(replaced.path, Buffer.alloc(png.length, 7));
    // A crash after the record, before the attachment: the record alone is ours.
    const lost = await o.writeAttachment({ operation: "shot", data: png, mimeType: "image/png" });
    unlinkSync(lost.path);

    const old = T0 - 5 * HOUR;
    const user: Record<string, Buffer> = {
      [`atlatl-report-${ulidAt(old, "0000000000000001")}.pdf`]: Buffer.from("%PDF-1.7 my report"),
      [`atlatl-report-${ulidAt(old, "0000000000000002")}.png`]: png,
      [`atlatl-shot-${ulidAt(old, "0000000000000003")}.bin`]: Buffer.alloc(0),
    };
    for (const [name, data] of Object.entries(user)) {
      writeFileSync(join(dir, name), data);
      utimesSync(join(dir, name), old / 1000, old / 1000);
    }
    const result = await sweepOffloadDir({ dir, ttlSeconds: 3600, now: () => T0 });

    expect(existsSync(ours.path)).toBe(false);
    expect(result.expired).toContain(ours.path);
    for (const [name, data] of Object.entries(user)) {
      expect(readFileSync(join(dir, name)), name).toEqual(data);
    }
    expect(readFileSync(replaced.path)).toEqual(Buffer.alloc(png.length, 7));
    expect(result.errors).toEqual([]);
    // Nothing of ours is left: only the user's files (the replaced one is theirs now).
    expect(readdirSync(dir).sort()).toEqual([...Object.keys(user), basename(replaced.path)].sort());
  });

  it.skipIf(process.getuid?.() !== 0)(
    "leaves an expired offload file (or temp file) owned by another user alone",
    async () => {
      const dir = setup();
      const [theirs] = (await writeOurs(dir)) as [string, string];
      chownSync(theirs, 12345, 12345);
      const tmp = join(dir, `.atlatl-recall-${ulidAt(T0 - 5 * HOUR)}.7.tmp`);
      writeFileSync(tmp, "");
      chownSync(tmp, 12345, 12345);
      utimesSync(tmp, (T0 - 5 * HOUR) / 1000, (T0 - 5 * HOUR) / 1000);
      const result = await sweepOffloadDir({ dir, ttlSeconds: 3600, now: () => T0 });
      expect(existsSync(theirs)).toBe(true);
      expect(existsSync(tmp)).toBe(true);
      expect(result.foreign).toBe(2);
      expect(result.expired).toHaveLength(1);
    },
  );
});
