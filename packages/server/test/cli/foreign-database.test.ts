/**
 * `--db` pointing at another program's SQLite database: atlatl refuses it and
 * leaves it byte for byte as it was, for read commands and write commands
 * alike (no tables, no migrations record, no journal mode change). Read
 * commands never create or migrate even atlatl's own database.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, dropSchema, freshSchema, pgUrl, schemaUrl } from "../backends/backends.js";

const serverRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(serverRoot, "src/cli/main.ts");

let dir: string;

function atlatl(args: string[]) {
  const r = spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", cli, ...args], {
    cwd: serverRoot,
    encoding: "utf8",
    env: { ...process.env, ATLATL_CONFIG: "" },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "atlatl-foreign-db-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A database of another program, built with `sql`; returns its path. */
function foreignDb(name: string, sql: string): string {
  const sub = mkdtempSync(join(dir, `${name}-`));
  const path = join(sub, `${name}.sqlite`);
  const db = new Database(path);
  db.exec(sql);
  db.close();
  return path;
}

const MIF = {
  "@context": "https://mif-spec.dev/schema/context.jsonld",
  "@type": "MemoryCollection",
  memories: [],
};

const COMMANDS: string[][] = [
  ["list"],
  ["recall", "anything"],
  ["search", "anything"],
  ["export"],
  ["seed", "--count", "3"],
  ["import", "IMPORT_FILE"],
];

describe("a database that is not atlatl's", () => {
  it.each([
    [
      "otherapp",
      "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada'), ('grace');",
    ],
    [
      "with-memories",
      "CREATE TABLE memories (id TEXT PRIMARY KEY, body TEXT); INSERT INTO memories VALUES ('m1', 'mine');",
    ],
    [
      "rails",
      "CREATE TABLE schema_migrations (version TEXT PRIMARY KEY); INSERT INTO schema_migrations VALUES ('20240101');",
    ],
  ])(
    "%s: every command refuses it and leaves it unchanged",
    (name, sql) => {
      const path = foreignDb(name, sql);
      const importFile = join(dirname(path), "empty.json");
      writeFileSync(importFile, JSON.stringify(MIF));
      const before = readFileSync(path);
      const files = readdirSync(dirname(path)).sort();
      for (const args of COMMANDS) {
        const argv = args.map((a) => (a === "IMPORT_FILE" ? importFile : a));
        const r = atlatl(["--db", path, ...argv]);
        expect(r.code, args.join(" ")).toBe(1);
        expect(r.stderr, args.join(" ")).toContain(
          `SCHEMA_INCOMPATIBLE: ${path} is not an atlatl memory database`,
        );
        expect(r.stdout, args.join(" ")).toBe("");
        expect(readFileSync(path).equals(before), args.join(" ")).toBe(true);
        expect(readdirSync(dirname(path)).sort(), args.join(" ")).toEqual(files);
      }
    },
    120_000,
  );

  it("read commands on an empty file neither create tables nor write; a write command adopts it", () => {
    const path = join(mkdtempSync(join(dir, "empty-")), "new.db");
    writeFileSync(path, "");
    for (const args of [["list"], ["search", "x"]]) {
      const r = atlatl(["--db", path, ...args]);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toContain("has no memories yet");
      expect(readFileSync(path).length).toBe(0);
    }
    expect(atlatl(["--db", path, "seed", "--count", "3"]).code).toBe(0);
    const listed = atlatl(["--db", path, "list", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split("\n")).toHaveLength(3);
  }, 60_000);

  it("an atlatl database from before the marker still opens; read commands leave it unchanged", () => {
    const path = join(mkdtempSync(join(dir, "legacy-")), "atlatl.db");
    expect(atlatl(["--db", path, "seed", "--count", "5"]).code).toBe(0);
    const db = new Database(path);
    db.pragma("application_id = 0");
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.close();
    const before = readFileSync(path);
    const listed = atlatl(["--db", path, "list", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split("\n")).toHaveLength(5);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(atlatl(["--db", path, "seed", "--count", "1", "--seed", "9"]).code).toBe(0);
    const after = new Database(path, { readonly: true });
    expect(after.pragma("application_id", { simple: true })).not.toBe(0);
    after.close();
  }, 60_000);
});

describe.skipIf(!BACKENDS.some((b) => b.name === "postgres"))(
  "a PostgreSQL schema that is not atlatl's",
  () => {
    it("is refused and left unchanged; a read command creates nothing in an empty schema", async () => {
      const schema = freshSchema();
      const client = new pg.Client({ connectionString: pgUrl() });
      await client.connect();
      const tables = async () =>
        (
          await client.query<{ t: string }>(
            "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
            [schema],
          )
        ).rows.map((r) => r.t);
      try {
        await client.query(`CREATE SCHEMA ${schema}`);
        const url = schemaUrl(schema);
        const listed = atlatl(["--database", url, "list"]);
        expect(listed.code).toBe(1);
        expect(listed.stderr).toContain("has no memories yet");
        expect(await tables()).toEqual([]);
        await client.query(`CREATE TABLE ${schema}.memories (id text PRIMARY KEY, body text)`);
        for (const args of [["list"], ["seed", "--count", "3"]]) {
          const r = atlatl(["--database", url, ...args]);
          expect(r.code, args.join(" ")).toBe(1);
          expect(r.stderr, args.join(" ")).toContain(
            `SCHEMA_INCOMPATIBLE: schema ${schema} is not an atlatl memory schema`,
          );
          expect(await tables()).toEqual(["memories"]);
        }
      } finally {
        await client.end();
        await dropSchema(schema);
      }
    }, 60_000);
  },
);
