/**
 * Fairness between principals (a server's tokens): while principal A floods
 * the engine with runaway filters, filling every worker and its own waiting
 * places, principal B's harmless runs are neither refused BUSY nor starved:
 * each is answered with its result. Outcomes, not timings. The real jq worker.
 */
import { afterEach, describe, expect, it } from "vitest";
import { JqEngine, type JqRunResult } from "../../src/extract/jq-engine.js";

const RUNAWAY = "def f: f; f";
const input = { key: "one", bytes: Buffer.from('{"a":1}\n') };
const code = (r: JqRunResult) => (r.ok ? "ok" : r.error.code);

let engine: JqEngine | undefined;
afterEach(async () => {
  await engine?.close();
});

describe("jq engine fairness between principals", () => {
  it("B's harmless runs all succeed while A's runaways hold every worker and waiting place", async () => {
    engine = new JqEngine({ workers: 2, timeoutMs: 1000, maxQueued: 6 });
    await engine.warm();
    // Two running, six waiting, the rest in A's line: A's places are full.
    const flood = Array.from({ length: 14 }, () =>
      (engine as JqEngine).run({ input, filter: RUNAWAY, principal: "token-a" }),
    );
    const harmless = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        (engine as JqEngine).run({ input, filter: `.a + ${i}`, principal: "token-b" }),
      ),
    );
    expect(harmless.map(code)).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    expect(harmless.map((r) => (r.ok ? r.lines : []))).toEqual([["1"], ["2"], ["3"], ["4"], ["5"]]);
    // A's own flood is still bounded: its runaways stopped, refused BUSY.
    const a = (await Promise.all(flood)).map(code);
    expect(a).not.toContain("ok");
    expect(a.filter((c) => c === "BUSY").length).toBeGreaterThanOrEqual(1);
  });

  it("runs without a principal share one (a stdio server's single client keeps its bounds)", async () => {
    engine = new JqEngine({ workers: 1, timeoutMs: 1000, maxQueued: 1, admitWaitMs: 0 });
    await engine.warm();
    const runs = Array.from({ length: 3 }, () =>
      (engine as JqEngine).run({ input, filter: RUNAWAY }),
    );
    // One running, one waiting, the third refused at once.
    expect(code(await (runs[2] as Promise<JqRunResult>))).toBe("BUSY");
    await Promise.all(runs);
  });
});
