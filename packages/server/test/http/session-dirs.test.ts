import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { LroEvents } from "@atlatl/lro";
import { Offloader } from "@atlatl/lro/node";
import { afterEach, describe, expect, it } from "vitest";
import {
  SESSIONS_SUBDIR,
  sessionOffloadDir,
  startSessionSweeper,
} from "../../src/http/mcp/session-dirs.js";

const HOUR = 3600_000;
const records = Array.from({ length: 200 }, (_, i) => ({
  id: `m${i}`,
  title: `memory ${i} `.repeat(20),
}));

async function offloadAt(dir: string, events: LroEvents, at: number): Promise<string> {
  const offloader = new Offloader({
    config: { enabled: true, thresholdTokens: 50, ttlSeconds: 3600, outputDir: dir },
    events,
    now: () => at,
  });
  const out = await offloader.offloadRecords({
    operation: "recall",
    query: "",
    detail: "light",
    records,
  });
  if (out.kind !== "offloaded") throw new Error(`expected an offload, got ${out.kind}`);
  return out.file.path;
}

describe("per-session offload directories and their sweeper", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("names a session's directory by a hash of its id, under sessions/", () => {
    const a = sessionOffloadDir("/base", "session-a");
    expect(dirname(a)).toBe(join("/base", SESSIONS_SUBDIR));
    expect(a).not.toContain("session-a");
    expect(sessionOffloadDir("/base", "session-a")).toBe(a);
    expect(sessionOffloadDir("/base", "session-b")).not.toBe(a);
  });

  it("expires files in every session directory, reporting a live session's to its own hub, and removes the directories of ended sessions", async () => {
    const base = mkdtempSync(join(tmpdir(), "atlatl-sweep-"));
    dirs.push(base);
    const events = new LroEvents({ sink: null });
    const expired: string[] = [];
    events.on("OffloadFileExpired", (e) => void expired.push(e.path));
    const live = sessionOffloadDir(base, "live");
    const gone = sessionOffloadDir(base, "gone");
    const oldLive = await offloadAt(live, events, Date.now() - 2 * HOUR);
    const freshLive = await offloadAt(live, events, Date.now());
    const oldGone = await offloadAt(gone, events, Date.now() - 2 * HOUR);
    const oldBase = await offloadAt(base, events, Date.now() - 2 * HOUR);

    const liveEvents = new LroEvents({ sink: null });
    const liveExpired: string[] = [];
    liveEvents.on("OffloadFileExpired", (e) => void liveExpired.push(e.path));
    const sweeper = startSessionSweeper({
      config: { outputDir: base, ttlSeconds: 3600 },
      events,
      ownerEvents: (d) => (d === live ? liveEvents : undefined),
      intervalMs: HOUR,
    });
    await sweeper.sweepNow();
    sweeper.stop();

    expect(existsSync(oldLive)).toBe(false);
    expect(existsSync(freshLive)).toBe(true);
    expect(existsSync(oldGone)).toBe(false);
    expect(existsSync(oldBase)).toBe(false);
    expect(existsSync(gone)).toBe(false);
    expect(readdirSync(join(base, SESSIONS_SUBDIR))).toEqual([live.split("/").pop()]);
    expect(expired.sort()).toEqual([oldBase, oldGone].sort());
    expect(liveExpired).toEqual([oldLive]);
  });
});
