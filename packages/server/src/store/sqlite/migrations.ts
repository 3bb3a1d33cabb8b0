/**
 * Numbered schema migrations, applied in order, each in its own transaction and
 * recorded in `schema_migrations`. Never edit a released migration: add the next
 * number.
 */
import type Database from "better-sqlite3";
import { StoreError } from "../errors.js";

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Version 1. Filtered and sorted fields are columns; everything else of the
 * memory is one JSON column (`doc`). Small columns come before the large ones
 * (title, tags, content, doc) so that filtering and scoring read them from the
 * row's first page without walking overflow pages of long content.
 *
 * `seq` is the insertion sequence (AUTOINCREMENT: never reused), the FTS rowid
 * and the horizon of ranked walks. `created_ms`/`modified_ms` are epoch
 * milliseconds: ISO strings with different offsets or precisions do not sort
 * as text. `tags` holds the JSON array text: FTS5 tokenizes it (punctuation is
 * a separator) and `memory_tags` mirrors it for exact, indexed tag filters.
 *
 * Sort indexes hold the key only: ties are broken by id with SQLite's sort of
 * "the right part of ORDER BY" over each group of equal keys, which costs
 * nothing when keys rarely tie, and index entries without a 36-character id
 * are a third of the size (bulk import touches fewer pages). Tag rows are
 * deleted by (tag, seq), the old tags being known, so they need no second index.
 * The namespace index holds the namespace alone, so new rows append at the end
 * of their namespace (by rowid) instead of landing at random creation times:
 * every commit of a bulk import rewrites fewer index pages.
 *
 * `memories_rank` is a covering index keyed by `seq` with every column that
 * filtering and scoring read: ranking joins each full-text match to it instead
 * of to the wide row (a third less time at 25,000 matches, measured).
 *
 * Status and type have no index of their own, on purpose: with two or three
 * values, none rare enough to matter, walking a sort index and skipping
 * non-matching rows beats an index lookup plus a sort, and leaves the planner
 * no bad plan to pick. Namespaces and tags can be narrow, so they have one.
 *
 * The FTS5 index is contentless (the text lives in `memories` already) with
 * `contentless_delete` so rows can be removed by rowid. The store writes it and
 * `memory_tags` explicitly in the same transaction as the row: measured, FTS5
 * inserts issued from a trigger cost three times as much as the same inserts
 * issued directly, and bulk import speed is a requirement.
 */
const V1 = `
CREATE TABLE memories (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  id           TEXT    NOT NULL UNIQUE,
  memory_type  TEXT    NOT NULL CHECK (memory_type IN ('semantic', 'episodic', 'procedural')),
  status       TEXT    NOT NULL CHECK (status IN ('active', 'archived', 'superseded')),
  namespace    TEXT    NOT NULL CHECK (length(namespace) > 0),
  created_ms   INTEGER NOT NULL,
  modified_ms  INTEGER NOT NULL,
  confidence   REAL    CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
  created      TEXT    NOT NULL,
  modified     TEXT    NOT NULL,
  title        TEXT    NOT NULL COLLATE NOCASE,
  tags         TEXT    NOT NULL, -- a JSON array, written by the store only
  content      TEXT    NOT NULL,
  doc          TEXT    NOT NULL
);
CREATE INDEX memories_created   ON memories (created_ms);
CREATE INDEX memories_modified  ON memories (modified_ms);
CREATE INDEX memories_title     ON memories (title);
CREATE INDEX memories_namespace ON memories (namespace);
CREATE INDEX memories_rank      ON memories (seq, status, memory_type, namespace, confidence, modified_ms);

CREATE TABLE memory_tags (
  tag TEXT    NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (tag, seq)
) WITHOUT ROWID;

-- 'epoch' counts write transactions: a ranked cursor issued at the current
-- epoch saw today's corpus statistics, so its position needs no re-scoring.
CREATE TABLE store_meta (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO store_meta (key, value) VALUES ('epoch', 0);

CREATE VIRTUAL TABLE memories_fts USING fts5 (
  title, content, tags,
  content = '',
  contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
`;

/** Every migration, ascending. */
export const MIGRATIONS: readonly Migration[] = [{ version: 1, name: "initial schema", sql: V1 }];

const LATEST = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/**
 * SQLite's `application_id` of an atlatl database (ASCII "ATLT" in the file
 * header): what marks a file as ours before we touch it. Databases written
 * before it was set are recognised by their first migration's record.
 */
const ATLATL_APPLICATION_ID = 0x41544c54;

/** What an opened file holds: nothing yet, atlatl's schema, or another program's data. */
type DatabaseKind = "empty" | "atlatl" | "foreign";

/**
 * Identify the database by reading only, and refuse one that is not atlatl's
 * (non-empty, without our marker) with `SCHEMA_INCOMPATIBLE`: nothing has been
 * written to it, and nothing will be.
 */
export function requireOurs(db: Database.Database, path: string): "empty" | "atlatl" {
  const appId = db.pragma("application_id", { simple: true }) as number;
  const objects = (
    db
      .prepare("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as {
      name: string;
    }[]
  ).map((r) => r.name);
  if (appId === ATLATL_APPLICATION_ID || (appId === 0 && hasFirstMigration(db))) return "atlatl";
  if (appId === 0 && objects.length === 0) return "empty";
  const shown = objects.slice(0, 5).join(", ") + (objects.length > 5 ? ", ..." : "");
  throw new StoreError(
    "SCHEMA_INCOMPATIBLE",
    `${path} is not an atlatl memory database (${appId !== 0 ? `application_id ${appId}` : `tables ${shown}`}, no atlatl marker); it was left unchanged: choose another file with --db or ATLATL_STORE__PATH`,
  );
}

/** An atlatl database from before the marker: `schema_migrations` records our first migration. */
function hasFirstMigration(db: Database.Database): boolean {
  const first = MIGRATIONS[0];
  if (!first) return false;
  try {
    return (
      db
        .prepare("SELECT 1 FROM schema_migrations WHERE version = ? AND name = ?")
        .get(first.version, first.name) !== undefined
    );
  } catch {
    return false; // no such table, or another program's table of that name
  }
}

/**
 * For read commands, which never create or migrate: the schema version of an
 * atlatl database that is ready to read, or a `StoreError` saying what to run.
 */
export function readableVersion(db: Database.Database, kind: DatabaseKind, path: string): number {
  if (kind === "empty") {
    throw new StoreError(
      "OPEN_FAILED",
      `${path} has no memories yet (an empty database); create them with \`atlatl import\`, \`atlatl seed\` or \`atlatl serve\``,
    );
  }
  const current =
    (
      db.prepare("SELECT max(version) AS v FROM schema_migrations").get() as {
        v: number | null;
      }
    ).v ?? 0;
  tooNew(current);
  if (current < LATEST) {
    throw new StoreError(
      "SCHEMA_INCOMPATIBLE",
      `${path} has schema version ${current} and this atlatl reads ${LATEST}; run a command that writes (\`atlatl serve\`, \`atlatl import\`) once to upgrade it`,
    );
  }
  checkShape(db);
  return current;
}

function tooNew(current: number): void {
  if (current > LATEST) {
    throw new StoreError(
      "SCHEMA_TOO_NEW",
      `the database has schema version ${current}, newer than this atlatl understands (${LATEST}); upgrade atlatl`,
    );
  }
}

/**
 * Apply pending migrations to an empty or atlatl database (see
 * {@link requireOurs}); refuse one written by a newer schema. Marks the file as
 * atlatl's in the same transaction that creates the migrations record.
 */
export function migrate(db: Database.Database): number {
  if (db.pragma("application_id", { simple: true }) !== ATLATL_APPLICATION_ID) {
    db.transaction(() => {
      db.pragma(`application_id = ${ATLATL_APPLICATION_ID}`);
      createMigrationsTable(db);
    }).immediate();
  }
  createMigrationsTable(db);
  const versionOf = db.prepare("SELECT max(version) AS v FROM schema_migrations");
  const currentVersion = () => (versionOf.get() as { v: number | null }).v ?? 0;
  tooNew(currentVersion());
  const record = db.prepare(
    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
  );
  for (const m of MIGRATIONS) {
    if (m.version <= currentVersion()) continue;
    // Re-check under the write lock: another process may have migrated meanwhile.
    db.transaction(() => {
      if (currentVersion() >= m.version) return;
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
    }).immediate();
  }
  checkShape(db);
  return LATEST;
}

function createMigrationsTable(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
}

/**
 * Refuse a database whose recorded version matches but whose tables do not
 * (a file from a development build): writing to it would corrupt its index.
 */
function checkShape(db: Database.Database): void {
  const names = new Set(
    (
      db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')").all() as {
        name: string;
      }[]
    ).map((r) => r.name),
  );
  const expected = ["memories", "memory_tags", "memories_fts", "store_meta"];
  const missing = expected.filter((n) => !names.has(n));
  if (missing.length > 0 || names.has("memories_ai")) {
    throw new StoreError(
      "SCHEMA_INCOMPATIBLE",
      `the memory database has an incompatible schema (${missing.length > 0 ? `missing ${missing.join(", ")}` : "old triggers"}); move the file away and re-import an export`,
    );
  }
}
