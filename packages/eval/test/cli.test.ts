import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../src/cli.js";
import { buildCorpusFiles } from "../src/corpus/freeze.js";
import { createProgress } from "../src/runner/progress.js";
import type { SampleScore } from "../src/score/score.js";

let dir: string;
let stdout: string[];
let stderr: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "atlatl-eval-cli-"));
});
afterAll(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

function capture() {
  stdout = [];
  stderr = [];
  const into = (sink: string[]) => (s: unknown) => {
    sink.push(String(s));
    return true;
  };
  vi.spyOn(process.stdout, "write").mockImplementation(into(stdout));
  vi.spyOn(process.stderr, "write").mockImplementation(into(stderr));
}

describe("atlatl-eval CLI", () => {
  it("corpus writes the same bytes as the frozen files", async () => {
    capture();
    expect(
      await main(["node", "atlatl-eval", "corpus", "--out", join(dir, "data"), "--scales", "50"]),
    ).toBe(0);
    vi.restoreAllMocks();
    const files = buildCorpusFiles(42, [50]);
    expect(await readFile(join(dir, "data", "corpus-50.jsonl"), "utf8")).toBe(
      files.get("corpus-50.jsonl"),
    );
  });

  it("run, score and report a scripted E3 grid; run again resumes with nothing to do", async () => {
    const out = join(dir, "results");
    const run = ["node", "atlatl-eval", "run", "--experiment", "e3", "--model", "scripted:exact"];
    capture();
    expect(await main([...run, "--scales", "50", "--tasks", "2", "--out", out])).toBe(0);
    expect(stdout.join("")).toContain("ran 6, skipped 0");
    // stderr is not a terminal here: no progress bar.
    expect(stderr.join("")).not.toContain("samples |");
    capture();
    expect(await main([...run, "--scales", "50", "--tasks", "2", "--out", out])).toBe(0);
    expect(stdout.join("")).toContain("ran 0, skipped 6");
    capture();
    expect(await main(["node", "atlatl-eval", "score", out])).toBe(0);
    expect(stdout.join("")).toContain("scripted:exact\te3-recipe\t100.0");
    expect(await main(["node", "atlatl-eval", "report", out])).toBe(0);
    vi.restoreAllMocks();
    expect(await readFile(join(out, "report.md"), "utf8")).toContain("Table 9.");
    const scores = (await readFile(join(out, "scores.jsonl"), "utf8")).trim().split("\n");
    expect(scores).toHaveLength(6);
  });

  it("conditions lists all 23, Native and the spec-library E3 marked, C5 from E1 Inline", async () => {
    capture();
    expect(await main(["node", "atlatl-eval", "conditions"])).toBe(0);
    vi.restoreAllMocks();
    const lines = stdout.join("").trim().split("\n");
    expect(lines).toHaveLength(23);
    expect(lines).toContain(
      "e1-native\te1\tNative (not in paper)\tid_lookup\tlist_memories,lro_extract",
    );
    expect(lines).toContain("e2-c5\te2\tC5 Inline\tid_lookup\tsamples of e1-inline");
    expect(lines).toContain(
      "e3-recipe-spec\te3\tRecipe (spec library, not in paper)\tid_lookup\tlist_memories,bash,read_file",
    );
  });

  it("bad input is a clear error and exit code 1", async () => {
    capture();
    expect(
      await main([
        "node",
        "atlatl-eval",
        "run",
        "--experiment",
        "e9",
        "--model",
        "scripted:exact",
        "--out",
        dir,
      ]),
    ).toBe(1);
    expect(stderr.join("")).toContain('unknown experiment "e9"');
    capture();
    expect(
      await main(["node", "atlatl-eval", "run", "--experiment", "e1", "--model", "gpt-5"]),
    ).toBe(1);
    expect(stderr.join("")).toContain("provider:model");
    capture();
    const budget = [
      "node",
      "atlatl-eval",
      "run",
      "--experiment",
      "e3",
      "--model",
      "scripted:exact",
    ];
    expect(await main([...budget, "--message-limit", "2", "--out", dir])).toBe(1);
    expect(stderr.join("")).toContain("an integer >= 3, or none");
    capture();
    // The folder of the resumable E3 run above holds 20-message samples: no mixing budgets.
    const out = join(dir, "results");
    expect(
      await main([
        ...budget,
        "--scales",
        "50",
        "--tasks",
        "2",
        "--out",
        out,
        "--message-limit",
        "none",
      ]),
    ).toBe(1);
    expect(stderr.join("")).toContain("run under message limit 20, not none; use another --out");
    capture();
    expect(await main(["node", "atlatl-eval", "report", join(dir, "nothing")])).toBe(1);
    expect(stderr.join("")).toContain("no results folder");
    vi.restoreAllMocks();
  });
});

describe("progress display", () => {
  const score = { correct: 1, total_tokens: 1234, cost_usd: 0.5 } as SampleScore;

  it("draws nothing when stderr is not a terminal", () => {
    const stream = Object.assign(new PassThrough(), {
      isTTY: false,
    }) as unknown as NodeJS.WriteStream;
    const chunks: string[] = [];
    (stream as unknown as PassThrough).on("data", (c) => chunks.push(String(c)));
    const p = createProgress(stream);
    p.start(2, 0);
    p.update(score, 1);
    p.stop();
    expect(chunks.join("")).toBe("");
  });

  it("shows samples, accuracy, tokens and cost on a terminal", () => {
    const chunks: string[] = [];
    const stream = Object.assign(new PassThrough(), {
      isTTY: true,
      columns: 120,
      cursorTo: () => true,
      clearLine: () => true,
      moveCursor: () => true,
    }) as unknown as NodeJS.WriteStream;
    (stream as unknown as PassThrough).on("data", (c) => chunks.push(String(c)));
    const p = createProgress(stream);
    p.start(2, 0);
    p.update(score, 1);
    p.stop();
    const text = chunks.join("");
    expect(text).toContain("1/2 samples");
    expect(text).toContain("accuracy 100.0%");
    expect(text).toContain("1,234 tokens");
    expect(text).toContain("USD 0.50");
  });
});
