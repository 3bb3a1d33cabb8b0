/**
 * Runaway filters do not starve a harmless one: with ten `def f: f; f` runs
 * pending, an eleventh, harmless run answers in about one time limit (not ten),
 * because while runs wait no run may hold a worker past its contended slice;
 * beyond `maxQueued` waiting runs a run waits `admitWaitMs` for a place (served
 * if one frees, BUSY if none does; at once with 0); and a run alone
 * keeps its whole time limit. The real jq worker, with a short time limit.
 */
import { afterEach, describe, expect, it } from "vitest";
import { JqEngine, type JqRunResult } from "../../src/extract/jq-engine.js";

/** The default time limit. */
const LIMIT_MS = 2000;
const RUNAWAY = "def f: f; f";
const input = { key: "one", bytes: Buffer.from('{"a":1}\n') };

let engine: JqEngine | undefined;
afterEach(async () => {
  await engine?.close();
});

const code = (r: JqRunResult) => (r.ok ? "ok" : r.error.code);

describe("jq engine fairness", () => {
  it("a harmless run behind ten runaways answers in about one time limit", async () => {
    // A slice of half the limit: even on a starved test host the harmless run
    // itself finishes inside its slice (by default a quarter).
    engine = new JqEngine({ workers: 2, timeoutMs: LIMIT_MS, contendedFraction: 1 / 2 });
    await engine.warm();
    for (let i = 0; i < 10; i++) void engine.run({ input, filter: RUNAWAY });
    const started = performance.now();
    const harmless = await engine.run({ input, filter: ".a + 1" });
    const waited = performance.now() - started;
    expect(harmless, !harmless.ok ? harmless.error.message : "").toEqual({
      ok: true,
      lines: ["2"],
    });
    // Served in arrival order on two workers they took five limits (one worker:
    // ten, the 21 s of the trial); now about one, with room for a busy host.
    expect(waited).toBeLessThan(2 * LIMIT_MS);
  });

  it("a runaway stopped twice for waiting runs is answered BUSY; the last, alone, runs to its limit", async () => {
    engine = new JqEngine({ workers: 1, timeoutMs: 400 });
    await engine.warm();
    const outcomes = await Promise.all(
      Array.from({ length: 2 }, () => engine?.run({ input, filter: RUNAWAY })),
    );
    const codes = outcomes.map((r) => (r ? code(r) : "none")).sort();
    expect(codes).toEqual(["BUSY", "FILTER_ABORTED"]);
    const busy = outcomes.find((r) => r && !r.ok && r.error.code === "BUSY");
    expect(busy && !busy.ok && busy.error.message).toMatch(
      /stopped after \d+ ms because other queries were waiting/,
    );
  });

  it("a burst of harmless runs past the waiting places is served, not refused", async () => {
    engine = new JqEngine({ workers: 1, timeoutMs: LIMIT_MS, maxQueued: 2 });
    await engine.warm();
    const runs = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (engine as JqEngine).run({ input, filter: `.a + ${i}` }),
      ),
    );
    expect(runs.map((r) => (r.ok ? r.lines : r.error.message))).toEqual(
      Array.from({ length: 12 }, (_, i) => [String(1 + i)]),
    );
  });

  it("a run past the waiting places that no place reaches in admitWaitMs is answered BUSY then", async () => {
    const waitMs = 300;
    engine = new JqEngine({ workers: 1, timeoutMs: LIMIT_MS, maxQueued: 1, admitWaitMs: waitMs });
    await engine.warm();
    // One runaway running (its slice is 500 ms), one waiting: the third waits in line.
    const held = [0, 1].map(() => (engine as JqEngine).run({ input, filter: RUNAWAY }));
    const started = performance.now();
    const r = await engine.run({ input, filter: ".a" });
    const waited = performance.now() - started;
    expect(code(r)).toBe("BUSY");
    expect(!r.ok && r.error.message).toMatch(
      /jq is busy: 1 queries running and 1 waiting .*, and this one waited 300 ms in line/,
    );
    expect(waited).toBeGreaterThanOrEqual(waitMs - 5);
    await Promise.all(held);
  });

  it("refuses at once with BUSY beyond maxInLine runs in the principal's line", async () => {
    engine = new JqEngine({ workers: 1, timeoutMs: LIMIT_MS, maxQueued: 1, maxInLine: 2 });
    await engine.warm();
    // One running, one waiting, two in line: the fifth is refused before anything ran.
    const runs = Array.from({ length: 5 }, () =>
      (engine as JqEngine).run({ input, filter: RUNAWAY }),
    );
    const refused = await Promise.race([
      runs[4] as Promise<JqRunResult>,
      new Promise<"pending">((r) => setTimeout(() => r("pending"), LIMIT_MS / 8)),
    ]);
    if (refused === "pending") throw new Error("the fifth run was not refused at once");
    expect(code(refused)).toBe("BUSY");
    expect(!refused.ok && refused.error.message).toMatch(
      /1 queries running and 1 waiting \(the most that may wait\) and 2 in line for a place \(the most that may\)/,
    );
    await Promise.all(runs);
  });

  it("with admitWaitMs 0, refuses at once with BUSY beyond maxQueued waiting runs", async () => {
    engine = new JqEngine({ workers: 1, timeoutMs: LIMIT_MS, maxQueued: 2, admitWaitMs: 0 });
    await engine.warm();
    const runs = Array.from({ length: 5 }, () => engine?.run({ input, filter: RUNAWAY }));
    // One running, two waiting, two refused before anything ran.
    const refused = await Promise.race([
      Promise.all([runs[3], runs[4]]),
      new Promise((r) => setTimeout(() => r("pending"), LIMIT_MS / 2)),
    ]);
    expect(refused).not.toBe("pending");
    for (const r of refused as JqRunResult[]) {
      expect(code(r)).toBe("BUSY");
      expect(!r.ok && r.error.message).toMatch(/jq is busy: 1 queries running and 2 waiting/);
    }
  });

  it("a runaway alone keeps its whole time limit", async () => {
    engine = new JqEngine({ workers: 1, timeoutMs: LIMIT_MS / 4 });
    await engine.warm();
    const r = await engine.run({ input, filter: RUNAWAY });
    expect(code(r)).toBe("FILTER_ABORTED");
    expect(!r.ok && r.error.message).toMatch(/after \d+ ms \(time limit\)/);
  });
});
