/**
 * The PostgreSQL offload store's tables, beside the memories in the same
 * database and schema. A file is one `offload_files` row (whose it is, its
 * name, size, SHA-256 and lifetime) and its bytes in `offload_chunks` rows of
 * at most {@link OFFLOAD_CHUNK_BYTES}; both are written in one transaction, so
 * a file is complete or absent for every reader. Chunks are kept as bytea
 * rather than large objects: a row delete (the sweep's `DELETE ... RETURNING`)
 * cascades to them, where large objects would need their own unlink.
 */
import type pg from "pg";
import { ensureTables } from "../../store/postgres/ensure-tables.js";

/** Bytes per chunk row: the size the materializer reads files in. */
export const OFFLOAD_CHUNK_BYTES = 1 << 20;

/**
 * `EXTERNAL` storage: chunks are TOASTed out of line without pglz compression,
 * which costs more CPU per offload than the disk it saves on short-lived files.
 */
const DDL = `
CREATE TABLE IF NOT EXISTS offload_files (
  principal  text        NOT NULL,
  name       text        NOT NULL,
  size       bigint      NOT NULL CHECK (size >= 0),
  sha256     bytea       NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (principal, name)
);
CREATE INDEX IF NOT EXISTS offload_files_expires ON offload_files (expires_at);
CREATE INDEX IF NOT EXISTS offload_files_listing ON offload_files (principal, created_at DESC);
CREATE TABLE IF NOT EXISTS offload_chunks (
  principal text    NOT NULL,
  name      text    NOT NULL,
  seq       integer NOT NULL,
  data      bytea   NOT NULL,
  PRIMARY KEY (principal, name, seq),
  FOREIGN KEY (principal, name) REFERENCES offload_files (principal, name)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
ALTER TABLE offload_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
`;

/** Create the tables when missing (idempotent; serialized across instances). */
export function ensureOffloadSchema(pool: pg.Pool): Promise<void> {
  return ensureTables(pool, "offload", DDL);
}
