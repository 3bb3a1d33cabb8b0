/**
 * Opening a SQLite database for reading only. A WAL database needs its `-shm`
 * index even to be read, and SQLite must create it when it is missing: in a
 * directory the user cannot write (a shared, read-only mount) that fails with
 * "attempt to write a readonly database". When the write-ahead log holds
 * nothing, every committed page is in the database file, so the file is read
 * into memory and opened from there; when the log holds changes, SQLite cannot
 * read them without the index, and the error says so.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import Database from "better-sqlite3";
import { StoreError } from "../errors.js";
import { isSqliteError } from "./statements.js";

/** What SQLite answers when it cannot create a WAL database's `-shm` file. */
const NO_SHARED_INDEX = new Set([
  "SQLITE_READONLY_DIRECTORY",
  "SQLITE_READONLY_CANTINIT",
  "SQLITE_CANTOPEN",
]);

/** Offsets of the file format's write and read versions in the header: 2 is WAL, 1 is rollback. */
const FORMAT_VERSION_BYTES = [18, 19] as const;

/** `path` opened read-only (it must exist); see the module comment. */
export function openReadOnly(path: string): Database.Database {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma("schema_version"); // the first read opens the WAL index
    return db;
  } catch (err) {
    db.close();
    if (!isSqliteError(err) || !NO_SHARED_INDEX.has(err.code)) throw err;
    return openImage(path, err);
  }
}

/** The database file read into memory, when the log holds nothing it lacks. */
function openImage(path: string, cause: unknown): Database.Database {
  const wal = `${path}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) {
    throw new StoreError(
      "OPEN_FAILED",
      `cannot read ${path} read-only: its write-ahead log ${basename(wal)} holds changes, and SQLite needs ${basename(path)}-shm beside it to read them, which it cannot create in ${dirname(path)} (not writable); open it once as a user who can write there (any atlatl command), or copy the three files to a writable directory`,
      { cause },
    );
  }
  const image = readFileSync(path);
  // The image has no log beside it: read it as a rollback-journal database.
  for (const at of FORMAT_VERSION_BYTES) if (image[at] === 2) image[at] = 1;
  return new Database(image, { readonly: true });
}
