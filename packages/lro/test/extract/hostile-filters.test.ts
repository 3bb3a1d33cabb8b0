/**
 * Hostile jq filters: runaway ones are stopped within the time or memory limit
 * and reported, the sandbox leaks neither the server's environment nor its
 * paths, and after every one of them the next call is answered normally.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ExtractHarness, parseJsonLines, startHarness } from "./harness.js";
import { makeMemories, projectMemory, writeOffloadFixture } from "./memory-fixtures.js";

const TIME_LIMIT_MS = 600;
/** Scheduling slack on a loaded CI machine (worker start, GC). */
const SLACK_MS = 2500;
const SECRET = `atlatl-secret-${process.pid}-value`;

let h: ExtractHarness;
let file: string;

beforeAll(async () => {
  process.env.ATLATL_TEST_SECRET = SECRET;
  h = await startHarness({
    thresholdTokens: 1e9,
    engine: { timeoutMs: TIME_LIMIT_MS, maxMemoryBytes: 256 * 1024 * 1024 },
  });
  file = writeOffloadFixture(
    h.dir,
    makeMemories(50).map((m) => projectMemory(m, "medium")),
    { detail: "medium" },
  ).path;
});

afterAll(async () => {
  delete process.env.ATLATL_TEST_SECRET;
  await h?.close();
});

/** After each hostile filter, a normal call must still answer correctly. */
async function expectHealthy() {
  const r = await h.call({ file_path: file, query: ".id", limit: 3 });
  expect(r.isError, r.text).toBe(false);
  expect(parseJsonLines(r.text)).toHaveLength(3);
}

const RUNAWAY: [string, Record<string, unknown>][] = [
  ["unbounded recursion", { query: "def f: f; f" }],
  ["recursion building arrays", { query: "def f(x): [x] | f(.); f(.)" }],
  ["a billion-element array", { query: "[range(1e9)]" }],
  ["huge string repetition", { query: '"x" * 1e9' }],
  ["a hundred million repeats", { query: '[limit(1e8; repeat("x"))] | length' }],
  ["deep nesting", { query: "reduce range(1e7) as $i (null; [.]) | tojson | length" }],
  ["billion-step reduce", { query: "reduce range(1e9) as $i (0; . + 1)" }],
  ["catastrophic regex backtracking", { query: '("a" * 40 + "!") | test("^(a+)+$")' }],
  ["exponential string doubling", { query: 'reduce range(40) as $i ("ab"; . + .) | length' }],
  [
    "cross product of inputs",
    {
      query:
        "[.[] as $a | .[] as $b | .[] as $c | .[] as $d | [$a.id, $b.id, $c.id, $d.id]] | length",
      slurp: true,
    },
  ],
];

describe("runaway filters", () => {
  it.each(RUNAWAY)(
    "%s: stopped within the limit, reported, and the next call works",
    async (_, args) => {
      const started = performance.now();
      const r = await h.call({ file_path: file, ...args });
      const elapsed = performance.now() - started;
      expect(r.isError, r.text).toBe(true);
      expect(r.text).toMatch(/^FILTER_ABORTED: the jq filter was stopped/);
      expect(elapsed).toBeLessThan(TIME_LIMIT_MS + SLACK_MS);
      await expectHealthy();
    },
  );
});

describe("sandbox escapes", () => {
  it("$ENV and env show jq's fixed sandbox environment, never the server's", async () => {
    for (const query of [
      "$ENV",
      "env",
      '[env[]] | join(" ")',
      "$ENV.ATLATL_TEST_SECRET",
      "env.HOME",
      "$ENV.PATH",
    ]) {
      const r = await h.call({ file_path: file, query, limit: 1 });
      expect(r.isError, r.text).toBe(false);
      expect(r.text).not.toContain(SECRET);
      for (const real of [process.env.HOME, process.env.PATH, process.cwd(), h.dir]) {
        if (real && real.length > 3) expect(r.text, query).not.toContain(real);
      }
    }
    const env = await h.call({ file_path: file, query: "env", limit: 1 });
    const values = parseJsonLines(env.text)[0] as Record<string, string>;
    expect(Object.keys(values)).not.toContain("ATLATL_TEST_SECRET");
    expect(values.HOME).toBe("/home/web_user");
  });

  it("input_filename and $__loc__ name no server path", async () => {
    for (const query of ["input_filename", "$__loc__", "input_line_number"]) {
      const r = await h.call({ file_path: file, query, limit: 1 });
      expect(r.isError, r.text).toBe(false);
      expect(r.text).not.toContain(h.dir);
      expect(r.text).not.toContain("atlatl-recall");
    }
  });

  it("input/inputs only see the same file's records", async () => {
    const r = await h.call({ file_path: file, query: "[inputs] | length", limit: 1 });
    expect(r.isError, r.text).toBe(false);
    expect(Number(r.text)).toBeLessThan(50);
    const once = await h.call({ file_path: file, query: "input | .id", limit: 1 });
    expect(once.isError, once.text).toBe(false);
    await expectHealthy();
  });

  it("modules cannot be loaded from the server's disk", async () => {
    for (const query of [
      'import "/etc/passwd" as p; .',
      'include "/etc/passwd"; .',
      'import "../../etc/passwd" as $p; $p',
    ]) {
      const r = await h.call({ file_path: file, query });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/^FILTER_INVALID: jq: error/);
      expect(r.text).not.toMatch(/root:x:0/);
    }
    await expectHealthy();
  });

  it("@sh-style quoting tricks and parameter injection stay data", async () => {
    const injected = '"; env; "';
    const r = await h.call({
      file_path: file,
      query: 'select(.title == $t) | @sh "echo \\(.title)"',
      params: { t: injected },
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toBe("");
    const sh = await h.call({ file_path: file, query: "[.title] | @sh", limit: 2, raw: true });
    expect(sh.isError, sh.text).toBe(false);
    expect(sh.text.split("\n")[0]).toMatch(/^'.*'$/);
  });

  it("halt, halt_error, debug and stderr neither kill the server nor reach stdout", async () => {
    const exitCode = process.exitCode;
    for (const query of [
      "halt",
      'halt_error("bye\\n")',
      "debug | .id",
      "stderr | .id",
      '"x" | halt_error(1)',
    ]) {
      await h.call({ file_path: file, query, limit: 1 });
    }
    expect(process.exitCode).toBe(exitCode);
    await expectHealthy();
  });
});
