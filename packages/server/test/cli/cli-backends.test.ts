/**
 * The CLI on either backend: store selection by URL (password redacted in
 * `atlatl config`), read commands refusing a missing SQLite database, and a
 * MIF round trip SQLite -> PostgreSQL that exports identical documents.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS } from "../backends/backends.js";

const serverRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(serverRoot, "src/cli/main.ts");
const postgres = BACKENDS.find((b) => b.name === "postgres");

let dir: string;

function atlatl(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", cli, ...args], {
    cwd: serverRoot,
    encoding: "utf8",
    env: { ...process.env, ATLATL_CONFIG: "", ATLATL_STORE__PATH: join(dir, "default.db"), ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "atlatl-cli-backends-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("atlatl CLI store selection", () => {
  it("read commands fail on a missing SQLite database and create nothing", () => {
    const db = join(dir, "nonexistent", "dir", "x.db");
    for (const args of [["list"], ["recall", "x"], ["search", "x"], ["export"]]) {
      const r = atlatl(["--db", db, ...args]);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr, args.join(" ")).toContain(`OPEN_FAILED: no memory database at ${db}`);
      expect(r.stdout).toBe("");
    }
    expect(existsSync(join(dir, "nonexistent"))).toBe(false);
  });

  it("shows the backend and redacts the password of a PostgreSQL URL", () => {
    const url = "postgres://atlatl:s3cr3t-pw@db.example:5432/memories";
    for (const args of [
      ["--database", url, "config", "--json"],
      ["config", "--json"],
    ]) {
      const r = atlatl(args, args[0] === "config" ? { ATLATL_STORE__URL: url } : {});
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain("s3cr3t");
      const entries = new Map(
        (JSON.parse(r.stdout).entries as { key: string; value: unknown; source: string }[]).map(
          (e) => [e.key, e],
        ),
      );
      expect(entries.get("store.backend")?.value).toBe("postgres");
      expect(entries.get("store.url")?.value).toBe("postgres://***@db.example:5432/memories");
    }
    const table = atlatl(["config"], { ATLATL_STORE__URL: url });
    expect(table.stdout).not.toContain("s3cr3t");
    const sqlite = atlatl(["config", "--json"]);
    const backend = (JSON.parse(sqlite.stdout).entries as { key: string; value: unknown }[]).find(
      (e) => e.key === "store.backend",
    );
    expect(backend?.value).toBe("sqlite");
  });

  it("redacts ?password= and ?sslpassword= in config, OPEN_FAILED and a refused URL", () => {
    const url = "postgres://atlatl@db.example/memories?sslmode=disable&password=s3cr3t-pw";
    const shown = atlatl(["--database", url, "config", "--json"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toContain("s3cr3t");
    const entry = (JSON.parse(shown.stdout).entries as { key: string; value: unknown }[]).find(
      (e) => e.key === "store.url",
    );
    expect(entry?.value).toBe("postgres://***@db.example/memories?sslmode=disable&password=***");
    // Port 1 refuses at once: the connection error quotes the URL.
    const refused = atlatl([
      "--database",
      "postgres://atlatl:s3cr3t-a@127.0.0.1:1/m?password=s3cr3t-b&sslpassword=s3cr3t-c",
      "list",
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("OPEN_FAILED");
    expect(refused.stderr).toContain("127.0.0.1:1/m?password=***&sslpassword=***");
    expect(refused.stderr).not.toContain("s3cr3t");
    // A libpq key=value string is refused as store.url, quoted without its password.
    const keyValue = atlatl(["--database", "host=db password=s3cr3t-d", "list"]);
    expect(keyValue.code).toBe(1);
    expect(keyValue.stderr).toContain("store.url");
    expect(keyValue.stderr).toContain("password=***");
    expect(keyValue.stderr).not.toContain("s3cr3t");
  });

  it("refuses a URL that is not postgres://, naming the key", () => {
    const r = atlatl(["--database", "mysql://x@y/z", "list"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/store\.url/);
  });
});

describe.skipIf(!postgres)("atlatl CLI on PostgreSQL", () => {
  it("exports from SQLite, imports into PostgreSQL, and exports identical MIF; every read command works", async () => {
    if (!postgres) throw new Error("unreachable");
    const target = await postgres.serverConfig(dir);
    try {
      const sqlite = ["--db", join(dir, "source.db")];
      expect(atlatl([...sqlite, "seed", "--count", "400", "--seed", "7"]).code).toBe(0);
      const first = join(dir, "first.json");
      const second = join(dir, "second.json");
      expect(atlatl([...sqlite, "export", "-o", first]).code).toBe(0);
      const imported = atlatl([...target.args, "import", first, "--json"]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout)).toMatchObject({ imported: 400 });
      expect(atlatl([...target.args, "export", "-o", second]).code).toBe(0);
      expect(readFileSync(second, "utf8")).toBe(readFileSync(first, "utf8"));

      const ids = (args: string[]) =>
        atlatl(args)
          .stdout.trim()
          .split("\n")
          .map((l) => JSON.parse(l).id as string);
      // Created order: import keeps the export's (created, insertion) order, so ties agree too.
      const listArgs = ["list", "--limit", "30", "--json"];
      expect(ids([...target.args, ...listArgs])).toEqual(ids([...sqlite, ...listArgs]));
      for (const [args, words] of [
        [["recall", "database migration", "--json"], /databas|migrat/i],
        [["search", "database", "--json"], /databas/i],
      ] as const) {
        const r = atlatl([...target.args, ...args]);
        expect(r.code, r.stderr).toBe(0);
        // One JSON record per line; an empty output (no line at all) is a failure.
        const lines = r.stdout.split("\n").filter((l) => l !== "");
        expect(lines.length, args.join(" ")).toBeGreaterThan(0);
        for (const line of lines) {
          const record = JSON.parse(line) as { id: unknown };
          expect(typeof record.id).toBe("string");
          expect(line, args.join(" ")).toMatch(words);
        }
      }
      const seeded = atlatl([...target.args, "seed", "--count", "50", "--seed", "8"]);
      expect(seeded.code, seeded.stderr).toBe(0);
      const all = atlatl([...target.args, "export", "-o", join(dir, "third.json")]);
      expect(all.stderr).toContain("exported 450 memories");
    } finally {
      await target.cleanup();
    }
  }, 120_000);

  it("the serve banner shows the URL without its ?password=", async () => {
    if (!postgres) throw new Error("unreachable");
    const target = await postgres.serverConfig(dir);
    try {
      const url = `${target.args[1]}&password=s3cr3t-pw`;
      const child = spawn(
        process.execPath,
        ["--conditions=source", "--import", "tsx", cli, "--database", url, "serve"],
        { cwd: serverRoot, env: { ...process.env, ATLATL_CONFIG: "" } },
      );
      let stderr = "";
      child.stderr.setEncoding("utf8");
      const banner = await new Promise<string>((resolveBanner, reject) => {
        child.stderr.on("data", (chunk: string) => {
          stderr += chunk;
          if (stderr.includes("serving MCP on stdio")) resolveBanner(stderr);
        });
        child.once("exit", (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
      });
      child.kill("SIGTERM");
      expect(banner).toContain("password=***");
      expect(banner).not.toContain("s3cr3t");
    } finally {
      await target.cleanup();
    }
  }, 60_000);
});
