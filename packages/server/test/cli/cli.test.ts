import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const serverRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(serverRoot, "src/cli/main.ts");
const examples = join(serverRoot, "vendor/mif/examples");

let dir: string;

/** Run the CLI from source as a child process; stdout and stderr kept apart. */
function atlatl(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", cli, ...args], {
    cwd: serverRoot,
    encoding: "utf8",
    env: { ...process.env, ATLATL_CONFIG: "", ATLATL_STORE__PATH: join(dir, "main.db"), ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "atlatl-cli-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("atlatl CLI", () => {
  it("seeds, then lists and recalls as JSON lines", () => {
    const seeded = atlatl(["seed", "--count", "300", "--seed", "3"]);
    expect(seeded.code).toBe(0);
    expect(seeded.stdout).toMatch(/seeded 300 memories/);

    const listed = atlatl(["list", "--limit", "5", "--json"]);
    expect(listed.code).toBe(0);
    const rows = listed.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(5);
    const created = rows.map((r) => r.created as string);
    expect([...created].sort().reverse()).toEqual(created);

    const recalled = atlatl(["recall", "", "--type", "procedural", "--limit", "7", "--json"]);
    const hits = recalled.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(hits).toHaveLength(7);
    for (const h of hits) {
      expect(h.memory_type).toBe("procedural");
      expect(h.score).toBeGreaterThanOrEqual(0);
      expect(h.score).toBeLessThanOrEqual(1);
    }
  });

  it("prints a table for people", () => {
    const table = atlatl(["list", "--limit", "3"]);
    expect(table.stdout.split("\n")[0]).toMatch(/^id\s+type\s+namespace\s+created\s+title/);
  });

  it("exports MIF JSON-LD that re-imports into another store with the same memories", () => {
    const file = join(dir, "export.json");
    expect(atlatl(["export", "--out", file]).code).toBe(0);
    const docs = JSON.parse(readFileSync(file, "utf8")) as { "@id": string }[];
    expect(docs).toHaveLength(300);
    expect(docs[0]?.["@id"]).toMatch(/^urn:mif:/);

    const other = { ATLATL_STORE__PATH: join(dir, "other.db") };
    const imported = atlatl(["import", file, "--json"], other);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ imported: 300, updated: 0, rejected: [] });
    const again = atlatl(["import", file, "--json"], other);
    expect(JSON.parse(again.stdout)).toMatchObject({ imported: 0, updated: 300 });

    const back = join(dir, "back.jsonl");
    expect(atlatl(["export", "-f", "jsonl", "-o", back], other).code).toBe(0);
    const a = new Map(docs.map((d) => [d["@id"], d]));
    const lines = readFileSync(back, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(300);
    for (const d of lines) expect(d).toEqual(a.get(d["@id"]));
  });

  it("imports the MIF examples directory (JSON and Markdown)", () => {
    const r = atlatl(["import", examples, "--json"], {
      ATLATL_STORE__PATH: join(dir, "examples.db"),
    });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.rejected).toEqual([]);
    expect(report.imported + report.updated).toBeGreaterThanOrEqual(4);
  });

  it("rejects an invalid document with its file and JSON pointer, exit code 1, and imports the rest", () => {
    const src = join(dir, "mixed");
    mkdirSync(src);
    writeFileSync(
      join(src, "bad.json"),
      JSON.stringify({
        "@context": "https://mif-spec.dev/schema/context.jsonld",
        "@type": "Memory",
        "@id": "urn:mif:bad-1",
        content: "no type",
        created: "2026-01-01T00:00:00Z",
      }),
    );
    writeFileSync(
      join(src, "good.json"),
      JSON.stringify({
        "@context": "https://mif-spec.dev/schema/context.jsonld",
        "@type": "Memory",
        "@id": "urn:mif:good-1",
        memoryType: "semantic",
        content: "fine",
        created: "2026-01-01T00:00:00Z",
      }),
    );
    const r = atlatl(["import", src], { ATLATL_STORE__PATH: join(dir, "mixed.db") });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/imported 1 new/);
    expect(r.stderr).toMatch(/bad\.json.*\/memoryType/);
  });

  it("reports the effective configuration and where each value came from", () => {
    const cfg = join(dir, "atlatl.toml");
    writeFileSync(cfg, "[prompt.offload]\nthreshold_tokens = 900\nttl_seconds = 60\n");
    const r = atlatl(["--config", cfg, "config", "--json"], {
      ATLATL_PROMPT__OFFLOAD__TTL_SECONDS: "120",
    });
    expect(r.code).toBe(0);
    const { entries } = JSON.parse(r.stdout) as {
      entries: { key: string; value: unknown; source: string }[];
    };
    const byKey = new Map(entries.map((e) => [e.key, e]));
    expect(byKey.get("prompt.offload.threshold_tokens")).toMatchObject({
      value: 900,
      source: `file ${cfg}`,
    });
    expect(byKey.get("prompt.offload.ttl_seconds")).toMatchObject({
      value: 120,
      source: "env ATLATL_PROMPT__OFFLOAD__TTL_SECONDS",
    });
    expect(byKey.get("prompt.offload.enabled")).toMatchObject({ value: true, source: "default" });
  });

  it("fails with a message naming the key, the value and its source on a bad value", () => {
    const r = atlatl(["config"], { ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS: "lots" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/prompt\.offload\.threshold_tokens/);
    expect(r.stderr).toMatch(/"lots"/);
    expect(r.stderr).toMatch(/ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS/);
  });

  it("lists and sweeps offload files: only expired files of our pattern go", () => {
    const out = join(dir, "offload");
    mkdirSync(out, { mode: 0o700 });
    // ULIDs: 01ARZ3NDEK... is 2016 (long expired); a fresh one is made from now.
    const old = join(out, "atlatl-recall-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl");
    const fresh = join(out, `atlatl-list-${freshUlid()}.jsonl`);
    const other = join(out, "notes.jsonl");
    for (const f of [old, fresh, other])
      writeFileSync(f, '{"type":"lro_header"}\n', { mode: 0o600 });
    utimesSync(old, new Date(0), new Date(0));
    const env = { ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: out };

    const ls = atlatl(["offload", "ls", "--json"], env);
    expect((JSON.parse(ls.stdout) as { name: string }[]).map((f) => f.name)).toEqual([
      fresh.split("/").pop(),
    ]);

    const sweep = atlatl(["offload", "sweep", "--json"], env);
    expect(JSON.parse(sweep.stdout)).toMatchObject({ expired: [old] });
    const left = atlatl(["offload", "ls", "--all", "--json"], env);
    expect((JSON.parse(left.stdout) as { name: string }[]).map((f) => f.name)).toEqual([
      fresh.split("/").pop(),
    ]);
    expect(readFileSync(other, "utf8")).toContain("lro_header");
  });
});

/** A ULID for the current time (Crockford base32 time part + random-looking tail). */
function freshUlid(): string {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let t = Date.now();
  let time = "";
  for (let i = 0; i < 10; i++) {
    time = (alphabet[t % 32] as string) + time;
    t = Math.floor(t / 32);
  }
  return `${time}${"Z".repeat(16)}`;
}
