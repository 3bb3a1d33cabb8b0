/**
 * Table 1's descriptor cost D (and tokens per record t) in both bases: the
 * engine's estimate the savings use (chars/4, as the paper) and real o200k
 * tokens, each measured on the frozen corpus and shown in the report.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { measureTable1, TABLE1_SIZES, type Table1Measure, table1 } from "../src/report/table1.js";

let m: Table1Measure;
beforeAll(async () => {
  m = await measureTable1();
}, 60_000);

describe("Table 1: t and D in chars/4 and o200k", () => {
  it("measures D at every size in both bases; o200k is above chars/4 for JSON", () => {
    for (const n of TABLE1_SIZES) {
      const d = m.d.get(n) as number;
      const o = m.dO200k.get(n) as number;
      expect(d, `n=${n}`).toBeGreaterThan(0);
      expect(o, `n=${n}`).toBeGreaterThan(d);
    }
    expect(m.tO200k).toBeGreaterThan(m.t);
  });

  it("shows both in the report's note, per size", () => {
    const { note } = table1(m);
    for (const n of TABLE1_SIZES) {
      expect(note).toContain(`${m.d.get(n)} chars/4, ${m.dO200k.get(n)} o200k at n=${n}`);
    }
    expect(note).toContain(`t = ${m.t.toFixed(1)} chars/4, ${m.tO200k.toFixed(1)} o200k`);
    expect(note).toContain("Savings from the engine's token estimate (chars/4)");
  });
});
