import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CONDITIONS,
  type Condition,
  conditionById,
  conditionsFor,
  runnable,
} from "../src/conditions/conditions.js";
import { loadCorpus } from "../src/corpus/freeze.js";
import type { MemoryRecord } from "../src/corpus/records.js";
import { bwrapWorks, createSandbox } from "../src/sandbox/sandbox.js";
import { APPENDIX_B_RECIPES } from "../src/strategies/recipes.js";
import { createEnvironment, type ToolEnvironment } from "../src/tools/environment.js";

const hasBwrap = bwrapWorks();
if (process.env.CI && !hasBwrap)
  throw new Error("CI must have a working bubblewrap (.ci/run installs it)");
const sandbox = createSandbox("auto");

function cond(id: string): Condition {
  const c = conditionById(id);
  if (!c) throw new Error(id);
  return c;
}

let records: MemoryRecord[];
const envs: ToolEnvironment[] = [];
async function env(id: string, recs = records, timeoutMs = 5000) {
  const e = await createEnvironment(cond(id), recs, { sandbox, timeoutMs });
  envs.push(e);
  return e;
}

beforeAll(async () => {
  records = (await loadCorpus(50)).records;
});
afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
});

describe("conditions", () => {
  it("are the paper's 21 plus Native and E3 with the spec library; C5 reports E1 Inline", () => {
    expect(CONDITIONS).toHaveLength(23);
    expect(CONDITIONS.filter((c) => !c.inPaper).map((c) => c.id)).toEqual([
      "e1-native",
      "e3-recipe-spec",
    ]);
    expect(new Set(CONDITIONS.map((c) => c.id)).size).toBe(23);
    // The paper's Table 6 C5 row is its Table 3 Inline row: C5 is not run again.
    expect(runnable(conditionsFor(["e2"])).map((c) => c.id)).toEqual([
      "e1-inline",
      "e2-c1",
      "e2-c2",
      "e2-c3",
      "e2-c4",
    ]);
    expect(runnable(conditionsFor(["all"]))).toHaveLength(22);
  });
});

describe("E3 recipe libraries", () => {
  it("Recipe shows the paper's Appendix B library; the spec variant the engine's ten", async () => {
    const paper = JSON.parse((await (await env("e3-recipe")).call("list_memories", {})).content);
    expect(paper.jq_recipes).toHaveLength(5);
    expect(paper.jq_recipes.map((r: { command: string }) => r.command)).toEqual(
      APPENDIX_B_RECIPES.map(([, q]) => q.replaceAll("{file}", paper.file_path)),
    );
    expect(paper.jq_recipes[0].command).toContain("jq -r '[.title,.provenance.confidence] | @tsv'");
    const spec = JSON.parse(
      (await (await env("e3-recipe-spec")).call("list_memories", {})).content,
    );
    expect(spec.jq_recipes).toHaveLength(10);
    const none = JSON.parse((await (await env("e3-norecipe")).call("list_memories", {})).content);
    expect(none.jq_recipes).toBeUndefined();
  });

  it("every Appendix B recipe runs with the real jq on the offload file", async () => {
    const e = await env("e3-recipe");
    const d = JSON.parse((await e.call("list_memories", {})).content);
    for (const { command, description } of d.jq_recipes as {
      command: string;
      description: string;
    }[]) {
      // execFileSync throws on a non-zero exit; the Search recipe's "keyword" is a placeholder.
      const out = execFileSync("bash", ["-c", `set -o pipefail; ${command}`], { encoding: "utf8" });
      if (!description.startsWith("Search")) expect(out.length).toBeGreaterThan(0);
    }
  });
});

describe("list_memories pagination", () => {
  it("inline: 5 full records a page, every record exactly once, errors past the last page", async () => {
    const e = await env("e1-inline");
    const seen: string[] = [];
    for (let page = 1; page <= 10; page++) {
      const out = await e.call("list_memories", { page });
      expect(out.isError).toBe(false);
      const body = JSON.parse(out.content);
      expect(body.total_pages).toBe(10);
      expect(body.records).toHaveLength(5);
      expect(body.records[0].content).toBeTypeOf("string");
      seen.push(...body.records.map((r: MemoryRecord) => r.id));
    }
    expect(seen).toEqual(records.map((r) => r.id));
    for (const page of [0, 11, 1.5, "2"]) {
      const bad = await e.call("list_memories", { page });
      expect(bad.isError).toBe(true);
      expect(bad.content).toContain("from 1 to 10");
    }
  });

  it("summary: id + title only, 10 a page, a short last page", async () => {
    const e = await env("e1-summary", records.slice(0, 23));
    const last = JSON.parse((await e.call("list_memories", { page: 3 })).content);
    expect(last.total_pages).toBe(3);
    expect(last.records).toHaveLength(3);
    expect(Object.keys(last.records[0]).sort()).toEqual(["id", "title"]);
    expect(last.records[2].id).toBe(records[22]?.id);
  });
});

describe("descriptor ablation", () => {
  const cases: [string, string[], string[]][] = [
    ["e2-c1", ["summary", "file_path", "line_schema", "jq_recipes", "guidance"], []],
    ["e2-c2", ["summary", "file_path", "line_schema", "guidance"], ["jq_recipes"]],
    ["e2-c3", ["summary", "file_path", "jq_recipes", "guidance"], ["line_schema"]],
    ["e2-c4", ["file_path"], ["summary", "line_schema", "jq_recipes", "guidance", "offloaded"]],
  ];
  it.each(cases)("%s shows %j and nothing of %j", async (id, present, absent) => {
    const e = await env(id);
    const out = await e.call("list_memories", {});
    const d = JSON.parse(out.content);
    for (const k of present) expect(d).toHaveProperty(k);
    for (const k of absent) expect(d).not.toHaveProperty(k);
    if (id === "e2-c4") expect(Object.keys(d)).toEqual(["file_path"]);
    // The file holds the header and every record.
    const lines = (await e.call("read_file", { path: d.file_path, limit: 2 })).content.split("\n");
    expect(JSON.parse(lines[0] as string).type).toBe("lro_header");
    expect(lines[2]).toContain("continue with offset=3");
  });

  it("native guidance names lro_extract, and lro_extract answers through the engine", async () => {
    const e = await env("e1-native");
    const d = JSON.parse((await e.call("list_memories", {})).content);
    expect(d.guidance).toContain("lro_extract");
    const out = await e.call("lro_extract", {
      file_path: d.file_path,
      query: "select(.extensions.priority >= 4) | .id",
      raw: true,
    });
    expect(out.isError).toBe(false);
    const expected = records.filter((r) => r.extensions.priority >= 4).map((r) => r.id);
    expect(out.content.trim().split("\n")).toEqual(expected);
    const bad = await e.call("lro_extract", { file_path: "/etc/passwd", recipe: 1 });
    expect(bad.isError).toBe(true);
  });
});

describe("read_file", () => {
  it("cuts at 16,000 characters on a line boundary and refuses paths outside its directory", async () => {
    const e = await env("e1-truncation");
    const d = JSON.parse((await e.call("list_memories", {})).content);
    const out = (await e.call("read_file", { path: d.file_path, offset: 2, limit: 500 })).content;
    expect(out.length).toBeLessThan(16_200);
    const m = out.match(/continue with offset=(\d+)/);
    expect(m).not.toBeNull();
    const shown = out.split("\n").filter((l) => l.startsWith("{"));
    expect(shown.length).toBe(Number(m?.[1]) - 2);
    for (const l of shown) JSON.parse(l);
    for (const path of ["/etc/hostname", "../../etc/hostname", `${e.dir}/../x`]) {
      expect((await e.call("read_file", { path })).isError).toBe(true);
    }
  });
});

describe.skipIf(!hasBwrap)("sandboxed bash (bubblewrap)", () => {
  let outside: string;
  let server: ReturnType<typeof createServer>;
  let port = 0;
  beforeAll(async () => {
    outside = await mkdtemp(join(tmpdir(), "atlatl-eval-outside-"));
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, "secret.txt"), "top secret\n");
    server = createServer((s) => s.end("hello\n"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    server.close();
    await rm(outside, { recursive: true, force: true });
  });

  it("runs jq over the offloaded file in its directory", async () => {
    const e = await env("e2-c4");
    const d = JSON.parse((await e.call("list_memories", {})).content);
    const out = await e.call("bash", { command: `tail -n +2 ${d.file_path} | jq -r .id | wc -l` });
    expect(out.content.trim()).toBe("50");
    expect(sandbox.mode).toBe("bwrap");
  });

  it("cannot read outside its directory", async () => {
    const e = await env("e2-c1");
    const out = await e.call("bash", {
      command: `cat ${join(outside, "secret.txt")}; ls /root /etc /home 2>&1; echo done`,
    });
    expect(out.content).not.toContain("top secret");
    expect(out.content).toContain("No such file");
    expect(out.content).toContain("done");
  });

  it("cannot reach the network, not even loopback", async () => {
    const e = await env("e2-c1");
    const out = await e.call("bash", {
      command: `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3 || echo unreachable`,
    });
    expect(out.content).not.toContain("hello");
    expect(out.content).toContain("unreachable");
  });

  it("is stopped at its time limit", async () => {
    const e = await env("e2-c1", records, 500);
    const t0 = Date.now();
    const out = await e.call("bash", { command: "sleep 30" });
    expect(out.isError).toBe(true);
    expect(out.content).toContain("TIMEOUT");
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});

describe("python_exec", () => {
  it("keeps its namespace between calls and echoes the last expression", async () => {
    const e = await env("e1-inline-code");
    expect((await e.call("python_exec", { code: "seen = set()\nseen.add('a')" })).content).toBe(
      "(no output)",
    );
    expect((await e.call("python_exec", { code: "seen.add('b')\nlen(seen)" })).content.trim()).toBe(
      "2",
    );
    const err = await e.call("python_exec", { code: "1/0" });
    expect(err.content).toContain("ZeroDivisionError");
    expect((await e.call("python_exec", { code: "sorted(seen)" })).content.trim()).toBe(
      "['a', 'b']",
    );
  });

  it.skipIf(!hasBwrap)("cannot read outside its directory", async () => {
    const e = await env("e1-inline-code");
    const out = await e.call("python_exec", {
      code: "import os\nprint(os.path.exists('/etc/hostname'), os.path.exists('/root'), os.getcwd() == os.environ['HOME'])",
    });
    expect(out.content.trim()).toBe("False False True");
  });
});
