/**
 * The jq engine itself: jq 1.7.1 in a worker, queued runs, the exit code left
 * alone, arguments as variables, and a large per-record run split across
 * workers giving exactly the single-worker output (and jq's own error).
 */
import { afterAll, describe, expect, it } from "vitest";
import { JqEngine } from "../../src/extract/jq-engine.js";
import { makeMemories, projectMemory } from "./memory-fixtures.js";

const single = new JqEngine({ workers: 1 });
const split = new JqEngine({ workers: 2, parallelMinBytes: 1024, splitOnlyWhenIdle: false });

afterAll(async () => {
  await Promise.all([single.close(), split.close()]);
});

const body = Buffer.from(
  `${makeMemories(400, 8)
    .map((m) => JSON.stringify(projectMemory(m, "light")))
    .join("\n")}\n`,
);
const input = (key: string) => ({ key, bytes: body });

describe("JqEngine", () => {
  it("is jq 1.7.1 and leaves process.exitCode alone, even after errors", async () => {
    const before = process.exitCode;
    // `pick` and literal-preserving number output are jq 1.7.
    const version = await single.run({
      input: { key: "v", bytes: Buffer.from('{"a":1.50,"b":2}') },
      filter: "pick(.a)",
    });
    expect(version).toEqual({ ok: true, lines: ['{"a":1.50}'] });
    const failed = await single.run({ input: input("a"), filter: 'error("boom")' });
    expect(failed.ok).toBe(false);
    expect(process.exitCode).toBe(before);
  });

  it("answers as many concurrent runs as may wait, each with its own arguments", async () => {
    // One runs, `maxQueued` (16) wait: all are answered, none refused as busy.
    const runs = await Promise.all(
      Array.from({ length: 17 }, (_, i) =>
        single.run({ input: input("b"), filter: "$n", args: { n: i }, slurp: true }),
      ),
    );
    expect(runs.map((r) => (r.ok ? r.lines[0] : r.error.message))).toEqual(
      Array.from({ length: 17 }, (_, i) => String(i)),
    );
  });

  it.each([
    ".id",
    'select(.tags | index("api")) | {id, tags}',
    '.title | ascii_downcase | split(" ") | length',
    'select(.namespace | startswith("_episodic")) | .namespace',
    "empty",
  ])("splitting %s across workers gives the single-worker output exactly", async (filter) => {
    const a = await single.run({ input: input("c"), filter });
    const b = await split.run({ input: input("c"), filter });
    expect(a.ok).toBe(true);
    expect(b).toEqual(a);
    expect(split.liveWorkers).toBe(2);
    expect(single.liveWorkers).toBe(1);
  });

  it("an error in one chunk reruns whole: jq's own message and line numbers", async () => {
    const filter = 'if .id == "x" then . else (.title | tonumber) end';
    const a = await single.run({ input: input("d"), filter });
    const b = await split.run({ input: input("d"), filter });
    expect(a.ok).toBe(false);
    expect(b).toEqual(a);
  });

  it("filters that read other inputs are not split", async () => {
    for (const filter of ["[., input] | length", "input_line_number", "halt_error"]) {
      const a = await single.run({ input: input("e"), filter });
      const b = await split.run({ input: input("e"), filter });
      expect(b, filter).toEqual(a);
    }
  });
});
