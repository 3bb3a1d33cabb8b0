/**
 * Numbered schema migrations of the PostgreSQL store, each applied in its own
 * transaction and recorded in `schema_migrations`, under a session advisory
 * lock so that several instances starting at once migrate exactly once (the
 * others wait, then find nothing to do). Never edit a released migration: add
 * the next number.
 */
import type { PoolClient } from "pg";
import { StoreError } from "../errors.js";

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Version 1. As on SQLite, filtered and sorted fields are columns and the rest
 * of the memory is JSON text (`doc`, kept as text: jsonb would reorder keys).
 *
 * - `seq` is the insertion sequence: tie-breaker of every order, keyset of
 *   ranked cursors and the horizon of ranked walks. An identity column is
 *   global to the database, so a cursor issued by one instance is valid on any.
 * - `namespace` and `title_key` use the "C" collation: namespace prefixes are
 *   matched with byte-wise range comparisons, and titles order like SQLite's
 *   NOCASE (ASCII letters folded, then bytes), whatever the database locale.
 * - `fts` is a stored generated tsvector (title weight A, tags B, content D)
 *   under the `atlatl` text search configuration: English snowball stemming
 *   *without* a stop-word list, like FTS5's porter tokenizer, so "not" or "so"
 *   stay searchable. A GIN index serves `@@`; COPY fills the column too.
 * - Sort indexes end in `seq`, so keyset pages are index range scans.
 */
const V1 = `
CREATE TEXT SEARCH DICTIONARY atlatl_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION atlatl (COPY = pg_catalog.english);
ALTER TEXT SEARCH CONFIGURATION atlatl
  ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH atlatl_stem;

CREATE TABLE memories (
  seq          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id           text   NOT NULL UNIQUE,
  memory_type  text   NOT NULL CHECK (memory_type IN ('semantic', 'episodic', 'procedural')),
  status       text   NOT NULL CHECK (status IN ('active', 'archived', 'superseded')),
  namespace    text   COLLATE "C" NOT NULL CHECK (length(namespace) > 0),
  created_ms   bigint NOT NULL,
  modified_ms  bigint NOT NULL,
  confidence   double precision CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
  created      text   NOT NULL,
  modified     text   NOT NULL,
  title        text   NOT NULL,
  title_key    text   COLLATE "C" GENERATED ALWAYS AS (lower(title COLLATE "C")) STORED,
  tags         text[] NOT NULL,
  tags_json    text   NOT NULL,
  content      text   NOT NULL,
  doc          text   NOT NULL,
  fts          tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('atlatl'::regconfig, title), 'A') ||
    setweight(to_tsvector('atlatl'::regconfig, tags_json), 'B') ||
    setweight(to_tsvector('atlatl'::regconfig, content), 'D')
  ) STORED
);
CREATE INDEX memories_created   ON memories (created_ms, seq);
CREATE INDEX memories_modified  ON memories (modified_ms, seq);
CREATE INDEX memories_title     ON memories (title_key, seq);
CREATE INDEX memories_namespace ON memories (namespace, seq);
CREATE INDEX memories_tags      ON memories USING gin (tags);
CREATE INDEX memories_fts       ON memories USING gin (fts);
`;

/**
 * Version 2: `memories` rebuilt with the columns a ranked text read needs
 * first (seq, status, confidence, modified_ms, fts), the rest in V1's order.
 * PostgreSQL decodes a row's columns left to right up to the last one a query
 * reads, and V1 had `fts` last: every hit of a text query walked all 17
 * columns (12% of a recall's server time, measured with perf). `id` takes the
 * "C" collation: ids are only ever compared for equality, which a
 * deterministic collation decides byte-wise anyway, and every insert's unique
 * check then compares bytes instead of calling strcoll. Same names for
 * the table, its constraints and indexes; `seq` values are kept, and the
 * identity continues where V1's left off (a deleted memory's number is not reused).
 */
const V2 = `
CREATE TABLE memories_v2 (
  seq          bigint GENERATED ALWAYS AS IDENTITY,
  status       text   NOT NULL CONSTRAINT memories_status_check CHECK (status IN ('active', 'archived', 'superseded')),
  confidence   double precision CONSTRAINT memories_confidence_check CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
  modified_ms  bigint NOT NULL,
  fts          tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('atlatl'::regconfig, title), 'A') ||
    setweight(to_tsvector('atlatl'::regconfig, tags_json), 'B') ||
    setweight(to_tsvector('atlatl'::regconfig, content), 'D')
  ) STORED,
  id           text   COLLATE "C" NOT NULL,
  memory_type  text   NOT NULL CONSTRAINT memories_memory_type_check CHECK (memory_type IN ('semantic', 'episodic', 'procedural')),
  namespace    text   COLLATE "C" NOT NULL CONSTRAINT memories_namespace_check CHECK (length(namespace) > 0),
  created_ms   bigint NOT NULL,
  created      text   NOT NULL,
  modified     text   NOT NULL,
  title        text   NOT NULL,
  title_key    text   COLLATE "C" GENERATED ALWAYS AS (lower(title COLLATE "C")) STORED,
  tags         text[] NOT NULL,
  tags_json    text   NOT NULL,
  content      text   NOT NULL,
  doc          text   NOT NULL
);
INSERT INTO memories_v2 (seq, status, confidence, modified_ms, id, memory_type, namespace, created_ms,
    created, modified, title, tags, tags_json, content, doc)
  OVERRIDING SYSTEM VALUE
  SELECT seq, status, confidence, modified_ms, id, memory_type, namespace, created_ms,
    created, modified, title, tags, tags_json, content, doc
  FROM memories ORDER BY seq;
SELECT setval(pg_get_serial_sequence('memories_v2', 'seq'), greatest(
  coalesce(pg_sequence_last_value(pg_get_serial_sequence('memories', 'seq')::regclass), 0),
  (SELECT coalesce(max(seq), 0) FROM memories_v2)) + 1, false);
DROP TABLE memories;
ALTER TABLE memories_v2 RENAME TO memories;
ALTER TABLE memories ADD CONSTRAINT memories_pkey PRIMARY KEY (seq);
ALTER TABLE memories ADD CONSTRAINT memories_id_key UNIQUE (id);
CREATE INDEX memories_created   ON memories (created_ms, seq);
CREATE INDEX memories_modified  ON memories (modified_ms, seq);
CREATE INDEX memories_title     ON memories (title_key, seq);
CREATE INDEX memories_namespace ON memories (namespace, seq);
CREATE INDEX memories_tags      ON memories USING gin (tags);
CREATE INDEX memories_fts       ON memories USING gin (fts);
`;

/** The GIN indexes (fastupdate, the default: inserts go to a pending list). */
export const GIN_INDEXES = ["memories_fts", "memories_tags"] as const;

/** Every migration, ascending. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "initial schema", sql: V1 },
  { version: 2, name: "ranked-read columns first", sql: V2 },
];

/** The newest schema this code knows. */
export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/**
 * Apply pending migrations on `client`; refuse a schema newer than the code.
 * The advisory lock is keyed by the current schema, so stores in different
 * schemas of one database (tests) do not wait for each other.
 */
export async function migrate(client: PoolClient): Promise<number> {
  await client.query("SELECT pg_advisory_lock(hashtext('atlatl.migrate.' || current_schema()))");
  try {
    await requireOurs(client);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer PRIMARY KEY,
      name       text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const current = await currentVersion(client);
    refuseTooNew(current);
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [
          m.version,
          m.name,
        ]);
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK");
        throw err;
      }
    }
    await checkShape(client);
    return LATEST_VERSION;
  } finally {
    await client.query(
      "SELECT pg_advisory_unlock(hashtext('atlatl.migrate.' || current_schema()))",
    );
  }
}

/**
 * Refuse, before creating anything, a schema that holds another program's
 * `memories` or `schema_migrations` (ours records our first migration):
 * `SCHEMA_INCOMPATIBLE`, nothing written.
 */
async function requireOurs(client: PoolClient): Promise<void> {
  const { rows } = await client.query<{ migrations: string | null; memories: string | null }>(
    "SELECT to_regclass('schema_migrations')::text AS migrations, to_regclass('memories')::text AS memories",
  );
  const found = rows[0];
  if (!found?.migrations && !found?.memories) return;
  if (found.migrations && (await hasFirstMigration(client))) return;
  throw new StoreError(
    "SCHEMA_INCOMPATIBLE",
    `schema ${await schemaName(client)} is not an atlatl memory schema (it has a ${found.migrations ? "schema_migrations" : "memories"} table atlatl did not write); it was left unchanged: use another database or schema`,
  );
}

async function hasFirstMigration(client: PoolClient): Promise<boolean> {
  const first = MIGRATIONS[0];
  if (!first) return false;
  try {
    const { rows } = await client.query(
      "SELECT 1 FROM schema_migrations WHERE version = $1 AND name = $2",
      [first.version, first.name],
    );
    return rows.length > 0;
  } catch {
    return false; // another program's table of that name (other columns)
  }
}

async function schemaName(client: PoolClient): Promise<string> {
  const { rows } = await client.query<{ s: string }>("SELECT current_schema() AS s");
  return rows[0]?.s ?? "?";
}

/**
 * For read commands, which never create or migrate: the schema version of an
 * atlatl schema ready to read, or a `StoreError` saying what to run.
 */
export async function readableVersion(client: PoolClient): Promise<number> {
  await requireOurs(client);
  const { rows } = await client.query<{ migrations: string | null }>(
    "SELECT to_regclass('schema_migrations')::text AS migrations",
  );
  if (!rows[0]?.migrations) {
    throw new StoreError(
      "OPEN_FAILED",
      `schema ${await schemaName(client)} has no memories yet; create them with \`atlatl import\`, \`atlatl seed\` or \`atlatl serve\``,
    );
  }
  const current = await currentVersion(client);
  refuseTooNew(current);
  if (current < LATEST_VERSION) {
    throw new StoreError(
      "SCHEMA_INCOMPATIBLE",
      `the database has schema version ${current} and this atlatl reads ${LATEST_VERSION}; run a command that writes (\`atlatl serve\`, \`atlatl import\`) once to upgrade it`,
    );
  }
  await checkShape(client);
  return current;
}

function refuseTooNew(current: number): void {
  if (current > LATEST_VERSION) {
    throw new StoreError(
      "SCHEMA_TOO_NEW",
      `the database has schema version ${current}, newer than this atlatl understands (${LATEST_VERSION}); upgrade atlatl`,
    );
  }
}

async function currentVersion(client: PoolClient): Promise<number> {
  const { rows } = await client.query<{ v: number | null }>(
    "SELECT max(version) AS v FROM schema_migrations",
  );
  return rows[0]?.v ?? 0;
}

/** Refuse a recorded version whose tables are missing (a hand-edited or partial schema). */
async function checkShape(client: PoolClient): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'memories'",
  );
  const have = new Set(rows.map((r) => r.name));
  const missing = ["seq", "id", "fts", "tags", "doc"].filter((c) => !have.has(c));
  if (missing.length > 0) {
    throw new StoreError(
      "SCHEMA_INCOMPATIBLE",
      `the memory database has an incompatible schema (memories lacks ${missing.join(", ")}); use an empty database or schema and re-import an export`,
    );
  }
}
