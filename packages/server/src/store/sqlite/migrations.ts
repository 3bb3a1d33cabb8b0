/**
 * Numbered schema migrations, applied in order, each in its own transaction and
 * recorded in `schema_migrations`. Never edit a released migration: add the next
 * number.
 */
import type Database from "better-sqlite3";
import { StoreError } from "../errors.js";

export interface Migration {
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

/** Apply pending migrations; refuse a database written by a newer schema. */
export function migrate(db: Database.Database): number {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const versionOf = db.prepare("SELECT max(version) AS v FROM schema_migrations");
  const currentVersion = () => (versionOf.get() as { v: number | null }).v ?? 0;
  const latest = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
  const current = currentVersion();
  if (current > latest) {
    throw new StoreError(
      "SCHEMA_TOO_NEW",
      `the database has schema version ${current}, newer than this atlatl understands (${latest}); upgrade atlatl`,
    );
  }
  const record = db.prepare(
    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
  );
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    // Re-check under the write lock: another process may have migrated meanwhile.
    db.transaction(() => {
      if (currentVersion() >= m.version) return;
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
    }).immediate();
  }
  checkShape(db);
  return latest;
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
