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
 * a separator) and triggers mirror it into `memory_tags` for exact filters.
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
  tags         TEXT    NOT NULL CHECK (json_valid(tags) AND json_type(tags) = 'array'),
  content      TEXT    NOT NULL,
  doc          TEXT    NOT NULL
);
CREATE INDEX memories_created   ON memories (created_ms, id);
CREATE INDEX memories_modified  ON memories (modified_ms, id);
CREATE INDEX memories_title     ON memories (title, id);
CREATE INDEX memories_namespace ON memories (namespace, created_ms);
CREATE INDEX memories_type      ON memories (memory_type, created_ms);
CREATE INDEX memories_status    ON memories (status, created_ms);

CREATE TABLE memory_tags (
  tag TEXT    NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (tag, seq)
) WITHOUT ROWID;
CREATE INDEX memory_tags_seq ON memory_tags (seq);

CREATE VIRTUAL TABLE memories_fts USING fts5 (
  title, content, tags,
  content = 'memories',
  content_rowid = 'seq',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts (rowid, title, content, tags)
    VALUES (new.seq, new.title, new.content, new.tags);
  INSERT OR IGNORE INTO memory_tags (tag, seq)
    SELECT value, new.seq FROM json_each(new.tags);
END;

CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, title, content, tags)
    VALUES ('delete', old.seq, old.title, old.content, old.tags);
  DELETE FROM memory_tags WHERE seq = old.seq;
END;

-- Re-index only when indexed text changed: re-importing the same memories
-- (idempotent upserts) then costs no FTS work.
CREATE TRIGGER memories_au_fts AFTER UPDATE OF title, content, tags ON memories
WHEN old.title IS NOT new.title OR old.content IS NOT new.content OR old.tags IS NOT new.tags
BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, title, content, tags)
    VALUES ('delete', old.seq, old.title, old.content, old.tags);
  INSERT INTO memories_fts (rowid, title, content, tags)
    VALUES (new.seq, new.title, new.content, new.tags);
END;

CREATE TRIGGER memories_au_tags AFTER UPDATE OF tags ON memories
WHEN old.tags IS NOT new.tags
BEGIN
  DELETE FROM memory_tags WHERE seq = old.seq;
  INSERT OR IGNORE INTO memory_tags (tag, seq)
    SELECT value, new.seq FROM json_each(new.tags);
END;
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
  return latest;
}
