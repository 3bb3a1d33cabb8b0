/**
 * The decision: `estimated_tokens > threshold_tokens` offloads, `<=` stays
 * inline, evaluated over the whole result set (ceil of the summed characters / 4
 * for Latin text, the tokenizer for CJK).
 */
import { readdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import {
  estimateLines,
  estimateTokens,
  isLatinText,
  projectRecord,
  utf8Length,
  utf8LengthPortable,
} from "../src/index.js";
import { Offloader } from "../src/node.js";
import { recordingEvents, tempDir } from "./fixtures/helpers.js";

const T = 1600;
let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function offloader(thresholdTokens = T, enabled = true) {
  const t = tempDir();
  cleanup = t.cleanup;
  const { events, seen } = recordingEvents();
  return {
    dir: t.dir,
    seen,
    o: new Offloader({
      config: { enabled, thresholdTokens, ttlSeconds: 3600, outputDir: t.dir },
      events,
    }),
  };
}

/** A light record whose serialized line is exactly `chars` long. */
function recordOfLength(chars: number, i = 0) {
  const base = {
    id: `m-${i}`,
    title: "",
    namespace: "_semantic/decisions",
    memory_type: "semantic",
    tags: ["edge"],
    created: "2025-01-01T00:00:00.000Z",
    modified: "2025-01-01T00:00:00.000Z",
    status: "active",
  };
  const pad = chars - JSON.stringify(projectRecord(base, "light")).length;
  if (pad < 0) throw new Error("too short");
  const rec = { ...base, title: "x".repeat(pad) };
  expect(JSON.stringify(projectRecord(rec, "light"))).toHaveLength(chars);
  return rec;
}

describe("threshold edges", () => {
  it("a result of exactly threshold_tokens stays inline; one more character offloads", async () => {
    const { o, dir } = offloader();
    const exact = await o.offloadRecords({
      operation: "recall",
      detail: "light",
      records: [recordOfLength(4 * T)],
    });
    expect(exact).toMatchObject({ kind: "inline", estimatedTokens: T });
    expect(readdirSync(dir)).toEqual([]);

    const over = await o.offloadRecords({
      operation: "recall",
      detail: "light",
      records: [recordOfLength(4 * T + 1)],
    });
    expect(over).toMatchObject({ kind: "offloaded", estimatedTokens: T + 1 });
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it("a single memory above the threshold is offloaded", async () => {
    const { o } = offloader();
    const r = await o.offloadRecords({
      operation: "recall",
      detail: "light",
      records: [recordOfLength(10 * T)],
    });
    expect(r.kind).toBe("offloaded");
    if (r.kind === "offloaded") expect(r.response.summary.count).toBe(1);
  });

  it("evaluates the total: many small memories together above the threshold are offloaded", async () => {
    const { o } = offloader();
    // Ten lines of 640 characters: 6400 characters = exactly 1600 tokens.
    const ten = Array.from({ length: 10 }, (_, i) => recordOfLength(640, i));
    const single = await o.offloadRecords({
      operation: "recall",
      detail: "light",
      records: [ten[0] as object],
    });
    expect(single).toMatchObject({ kind: "inline", estimatedTokens: 160 });
    const atThreshold = await o.offloadRecords({
      operation: "recall",
      detail: "light",
      records: ten,
    });
    expect(atThreshold).toMatchObject({ kind: "inline", estimatedTokens: T });
    // One extra character anywhere in the set tips it over.
    const tipped = [...ten.slice(0, 9), recordOfLength(641, 9)];
    const over = await o.offloadRecords({ operation: "recall", detail: "light", records: tipped });
    expect(over).toMatchObject({ kind: "offloaded", estimatedTokens: T + 1 });
  });

  it("estimates at the requested detail level (full records measured as light lines)", async () => {
    const { o } = offloader(100);
    const rec = { ...recordOfLength(300), content: "c".repeat(5000) };
    const light = await o.offloadRecords({ operation: "recall", detail: "light", records: [rec] });
    expect(light).toMatchObject({ kind: "inline", estimatedTokens: 75 });
    const medium = await o.offloadRecords({
      operation: "recall",
      detail: "medium",
      records: [rec],
    });
    expect(medium.kind).toBe("offloaded");
  });

  it("never offloads when disabled, however large the result", async () => {
    const { o, dir } = offloader(10, false);
    const r = await o.offloadRecords({
      operation: "list",
      detail: "light",
      records: Array.from({ length: 50 }, (_, i) => recordOfLength(400, i)),
    });
    expect(r.kind).toBe("inline");
    expect(r.estimatedTokens).toBe(5000);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("returns the serialized lines of an inline result (the bytes that were measured)", async () => {
    const { o } = offloader();
    const recs = [recordOfLength(200, 1), recordOfLength(240, 2)];
    const r = await o.offloadRecords({ operation: "recall", detail: "light", records: recs });
    if (r.kind !== "inline") throw new Error("expected inline");
    expect(r.lines.map((l) => l.length)).toEqual([200, 240]);
    expect(r.lines.map((l) => JSON.parse(l))).toEqual(recs);
    expect(r.estimatedTokens).toBe(Math.ceil(440 / 4));
  });
});

describe("estimation", () => {
  it("uses ceil(chars / 4) for Latin-script text, accents, punctuation and arrows included", async () => {
    expect(await estimateTokens("")).toBe(0);
    expect(await estimateTokens("abcde")).toBe(2);
    const latin = "Café résumé — naïve façade → “quotes” … ©";
    expect(isLatinText(latin)).toBe(true);
    expect(await estimateTokens(latin)).toBe(Math.ceil(latin.length / 4));
  });

  it("uses a real tokenizer for CJK, where chars / 4 would undercount", async () => {
    const { countTokens } = await import("gpt-tokenizer");
    const cjk = "大規模な結果をファイルに書き出し、要約だけを返します。検索結果の件数を数える。";
    expect(isLatinText(cjk)).toBe(false);
    const n = await estimateTokens(cjk);
    expect(n).toBe(countTokens(cjk));
    expect(n).toBeGreaterThan(Math.ceil(cjk.length / 4));
    // Text that looks like a special token is just text.
    expect(await estimateTokens("日本 <|endoftext|>")).toBeGreaterThan(0);
  });

  it("counts UTF-8 bytes like Node, natively and in the portable fallback", () => {
    for (const s of [
      "",
      "abc",
      "é",
      "日本語",
      "🚀 ok",
      "a\ud800b",
      "\udc00",
      "x\ud83d",
      "—café✓→",
    ]) {
      expect(utf8Length(s)).toBe(Buffer.byteLength(s, "utf8"));
      expect(utf8LengthPortable(s)).toBe(Buffer.byteLength(s, "utf8"));
    }
  });

  it("treats Cyrillic, Greek and emoji as non-Latin", () => {
    expect(isLatinText("Привет мир")).toBe(false);
    expect(isLatinText("λόγος")).toBe(false);
    expect(isLatinText("ship it 🚀")).toBe(false);
  });

  it("sums Latin lines by characters and adds tokenized counts of mixed-script lines", async () => {
    const { countTokens } = await import("gpt-tokenizer");
    const lines = ['{"t":"abc"}', '{"t":"中文内容和English混合"}', '{"t":"defg"}'];
    const e = await estimateLines(lines);
    const latinChars = (lines[0] as string).length + (lines[2] as string).length;
    expect(e.latinChars).toBe(latinChars);
    expect(e.tokenized.get(1)).toBe(countTokens(lines[1] as string));
    expect(e.tokens).toBe(Math.ceil(latinChars / 4) + countTokens(lines[1] as string));
  });

  it("offloads a CJK result that chars / 4 would have kept inline", async () => {
    const { o } = offloader(200);
    const text = "記憶の内容は日本語で書かれています。".repeat(20);
    const rec = { ...recordOfLength(200), title: text };
    const chars = JSON.stringify(projectRecord(rec, "light")).length;
    expect(Math.ceil(chars / 4)).toBeLessThanOrEqual(200);
    const r = await o.offloadRecords({ operation: "recall", detail: "light", records: [rec] });
    expect(r.kind).toBe("offloaded");
    expect(r.estimatedTokens).toBeGreaterThan(200);
  });
});
