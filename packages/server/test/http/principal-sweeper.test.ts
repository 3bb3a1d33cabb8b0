import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { LroEvents } from "@atlatl/lro";
import { Offloader } from "@atlatl/lro/node";
import { afterEach, describe, expect, it } from "vitest";
import { startPrincipalSweeper } from "../../src/http/mcp/principal-sweeper.js";
import {
  PRINCIPALS_SUBDIR,
  type Principal,
  Principals,
  principalDir,
  tokenPrincipal,
} from "../../src/http/mcp/principals.js";

const HOUR = 3600_000;
const config = (outputDir: string) => ({
  enabled: true,
  thresholdTokens: 50,
  ttlSeconds: 3600,
  outputDir,
});
const records = Array.from({ length: 200 }, (_, i) => ({
  id: `m${i}`,
  title: `memory ${i} `.repeat(20),
}));

async function offloadAt(dir: string, events: LroEvents, at: number): Promise<string> {
  const offloader = new Offloader({ config: config(dir), events, now: () => at });
  const out = await offloader.offloadRecords({
    operation: "recall",
    query: "",
    detail: "light",
    records,
  });
  if (out.kind !== "offloaded") throw new Error(`expected an offload, got ${out.kind}`);
  return out.file.path;
}

const expiredOn = (events: LroEvents): string[] => {
  const seen: string[] = [];
  events.on("OffloadFileExpired", (e) => void seen.push(e.path));
  return seen;
};

describe("principals' offload directories and their sweeper", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("names a token's principal by a hash, stable and carrying neither the token nor its position", () => {
    const id = tokenPrincipal("secret-token-one");
    expect(id).toMatch(/^tok-[0-9a-f]{16}$/);
    expect(tokenPrincipal("secret-token-one")).toBe(id);
    expect(tokenPrincipal("secret-token-two")).not.toBe(id);
    const dir = principalDir("/base", id);
    expect(dirname(dir)).toBe(join("/base", PRINCIPALS_SUBDIR));
    expect(dir).not.toContain(id);
    expect(principalDir("/base", id)).toBe(dir);
    expect(principalDir("/base", tokenPrincipal("secret-token-two"))).not.toBe(dir);
  });

  it("gives each principal one offloader writing to its own private directory, events on its own hub and the process's", async () => {
    const base = mkdtempSync(join(tmpdir(), "atlatl-principals-"));
    dirs.push(base);
    const processEvents = new LroEvents({ sink: null });
    const created: string[] = [];
    processEvents.on("OffloadCreated", (e) => void created.push(e.path));
    const principals = new Principals({ config: config(base), events: processEvents });
    const a = principals.get("tok-a");
    expect(principals.get("tok-a")).toBe(a);
    expect(principals.get("tok-b")).not.toBe(a);
    const heardByA: string[] = [];
    a.events.on("OffloadCreated", (e) => void heardByA.push(e.path));
    const out = await a.offloader.offloadRecords({
      operation: "recall",
      query: "",
      detail: "light",
      records,
    });
    if (out.kind !== "offloaded") throw new Error(`expected an offload, got ${out.kind}`);
    expect(dirname(out.file.path)).toBe(principalDir(base, "tok-a"));
    expect(statSync(a.dir).mode & 0o777).toBe(0o700);
    expect(heardByA).toEqual([out.file.path]);
    expect(created).toEqual([out.file.path]);
    expect(principals.ofDir(a.dir)).toBe(a);
    expect(principals.ofDir(principalDir(base, "tok-unseen"))).toBeUndefined();
  });

  it("expires files in every principal directory, each reported to its principal's hub, and removes only idle principals' empty directories", async () => {
    const base = mkdtempSync(join(tmpdir(), "atlatl-sweep-"));
    dirs.push(base);
    const events = new LroEvents({ sink: null });
    const expired = expiredOn(events);
    const principals = new Principals({
      config: config(base),
      events: new LroEvents({ sink: null }),
    });
    const live: Principal = principals.get("tok-live");
    live.active = 1;
    const idle = principals.get("tok-idle");
    const drained = principals.get("tok-drained");
    drained.active = 2;
    const unseen = principalDir(base, "tok-from-before-a-restart");
    const liveExpired = expiredOn(live.events);
    const idleExpired = expiredOn(idle.events);

    const oldLive = await offloadAt(live.dir, events, Date.now() - 2 * HOUR);
    const freshLive = await offloadAt(live.dir, events, Date.now());
    const oldIdle = await offloadAt(idle.dir, events, Date.now() - 2 * HOUR);
    const oldDrained = await offloadAt(drained.dir, events, Date.now() - 2 * HOUR);
    const oldUnseen = await offloadAt(unseen, events, Date.now() - 2 * HOUR);
    const oldBase = await offloadAt(base, events, Date.now() - 2 * HOUR);
    // A per-session directory an older version left behind (a crash).
    const legacy = join(base, "sessions", "0123456789abcdef0123456789abcdef");
    const oldLegacy = await offloadAt(legacy, events, Date.now() - 2 * HOUR);

    const sweeper = startPrincipalSweeper({
      config: { outputDir: base, ttlSeconds: 3600 },
      events,
      principals,
      intervalMs: HOUR,
    });
    await sweeper.sweepNow();
    sweeper.stop();

    for (const gone of [oldLive, oldIdle, oldDrained, oldUnseen, oldBase, oldLegacy]) {
      expect(existsSync(gone)).toBe(false);
    }
    expect(existsSync(freshLive)).toBe(true);
    // Empty and idle (or unknown): removed. Empty with a live session: kept.
    expect(existsSync(idle.dir)).toBe(false);
    expect(existsSync(unseen)).toBe(false);
    expect(existsSync(legacy)).toBe(false);
    expect(existsSync(drained.dir)).toBe(true);
    expect(readdirSync(join(base, PRINCIPALS_SUBDIR)).sort()).toEqual(
      [live.dir, drained.dir].map((d) => d.split("/").pop()).sort(),
    );
    expect(liveExpired).toEqual([oldLive]);
    expect(idleExpired).toEqual([oldIdle]);
    expect(expired.sort()).toEqual([oldBase, oldUnseen, oldLegacy].sort());
  });
});
