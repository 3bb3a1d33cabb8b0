/**
 * Read commands on a WAL database in a directory its user cannot write: they
 * read (SQLite cannot create the `-shm` file there) and change nothing; when
 * the write-ahead log holds changes SQLite cannot read without `-shm`, they
 * say so. Permissions are real: as root (which bypasses them) the commands run
 * as `nobody` through `setpriv`.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const serverRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(serverRoot, "src/cli/main.ts");
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

let root: string;

/** Run `argv` (node arguments) as the unprivileged user. */
function run(argv: string[]) {
  const node = [process.execPath, ...argv];
  const [cmd, ...args] = asRoot
    ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...node]
    : node;
  const r = spawnSync(cmd as string, args, {
    cwd: serverRoot,
    encoding: "utf8",
    env: { ...process.env, ATLATL_CONFIG: "", HOME: root },
    timeout: 60_000,
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const atlatl = (args: string[]) => run(["--conditions=source", "--import", "tsx", cli, ...args]);

/** A directory the unprivileged user owns, holding a seeded database. */
function seededDir(name: string, count: number): { dir: string; db: string } {
  const dir = join(root, name);
  const made = run(["-e", `require("node:fs").mkdirSync(${JSON.stringify(dir)}, { mode: 0o755 })`]);
  expect(made.code, made.stderr).toBe(0);
  const db = join(dir, "atlatl.db");
  const seeded = atlatl(["--db", db, "seed", "--count", String(count)]);
  expect(seeded.code, seeded.stderr).toBe(0);
  return { dir, db };
}

/** The memory ids of a command's JSON output (JSON lines, or an export's array). */
function ids(stdout: string): string[] {
  if (stdout.startsWith("[")) {
    return (JSON.parse(stdout) as { "@id": string }[]).map((m) => m["@id"]);
  }
  return stdout
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { id: string }).id);
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "atlatl-ro-dir-"));
  chmodSync(root, 0o755);
  if (asRoot) chownSync(root, NOBODY, NOBODY);
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("a WAL database in a read-only directory", () => {
  it("list, search, recall and export read it and change nothing", () => {
    const { dir, db } = seededDir("clean", 30);
    const reads = [
      ["list", "--json", "--limit", "100"],
      ["search", "the", "--json"],
      ["recall", "--json"],
      ["export"],
    ];
    // What the reads answer where the directory is writable...
    const expected = reads.map((args) => atlatl(["--db", db, ...args]));
    // Read-only connections leave SQLite's empty log and index behind (only a
    // writer removes them); start from the state a writer's clean close leaves.
    expect(statSync(`${db}-wal`).size).toBe(0);
    rmSync(`${db}-wal`);
    rmSync(`${db}-shm`);
    expect(readdirSync(dir).sort()).toEqual(["atlatl.db"]);
    chmodSync(dir, 0o555);
    const before = readFileSync(db);
    const files = readdirSync(dir).sort();
    // ...they answer where it is not.
    for (const [i, args] of reads.entries()) {
      const r = atlatl(["--db", db, ...args]);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      expect(r.stdout.trim().length, args.join(" ")).toBeGreaterThan(0);
      // The same memories in the same order (recall's scores move with the clock).
      expect(ids(r.stdout), args.join(" ")).toEqual(ids(expected[i]?.stdout ?? ""));
    }
    expect(ids(expected[3]?.stdout ?? "")).toHaveLength(30);
    expect(readFileSync(db).equals(before)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(files);
    // A write command still fails, saying why.
    const seeded = atlatl(["--db", db, "seed", "--count", "1"]);
    expect(seeded.code).toBe(1);
    expect(seeded.stderr).toMatch(/readonly|read-only|permission/i);
  }, 120_000);

  it("with changes only in the write-ahead log: read with its -shm, or a clear refusal without", () => {
    const { dir, db } = seededDir("wal", 10);
    // A writer killed after a commit leaves the change in atlatl.db-wal (and -shm).
    const killed = run([
      "-e",
      `const D = require(${JSON.stringify(createRequire(join(serverRoot, "package.json")).resolve("better-sqlite3"))});
       const db = new D(${JSON.stringify(db)});
       db.pragma("wal_autocheckpoint = 0");
       db.prepare("UPDATE memories SET title = 'changed in the log' WHERE seq = 1").run();
       process.kill(process.pid, "SIGKILL");`,
    ]);
    expect(killed.code).toBe(null);
    expect(readdirSync(dir).sort()).toEqual(["atlatl.db", "atlatl.db-shm", "atlatl.db-wal"]);
    chmodSync(dir, 0o555);
    const listed = atlatl(["--db", db, "list", "--json", "--limit", "100"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("changed in the log");

    chmodSync(dir, 0o755);
    rmSync(join(dir, "atlatl.db-shm"));
    chmodSync(dir, 0o555);
    const refused = atlatl(["--db", db, "list"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `OPEN_FAILED: cannot read ${db} read-only: its write-ahead log atlatl.db-wal holds changes`,
    );
    expect(refused.stdout).toBe("");
  }, 120_000);
});
