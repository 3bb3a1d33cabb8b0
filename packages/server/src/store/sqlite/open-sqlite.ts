/**
 * Opening the SQLite store: creating the file (or, for read commands, opening
 * it read-only), refusing a file that is not atlatl's, configuring the
 * connection and migrating the schema.
 *
 * Reading only: a WAL database needs its `-shm` index even to be read, and
 * SQLite must create it when it is missing: in a directory the user cannot
 * write (a shared, read-only mount) that fails with "attempt to write a
 * readonly database". When the write-ahead log holds nothing, every committed
 * page is in the database file, so the file is read into memory and opened
 * from there; when the log holds changes, SQLite cannot read them without the
 * index, and the error says so.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { StoreError } from "../errors.js";
import { migrate, readableVersion, requireOurs } from "./migrations.js";
import { isSqliteError, storeError } from "./sqlite-errors.js";
import { SqliteMemoryStore } from "./sqlite-store.js";

/** Options of {@link openSqliteStore}. */
interface SqliteStoreOptions {
  /** Database file, or `:memory:` (tests). Parent directories are created 0700, the file 0600. */
  path: string;
  /**
   * Read commands: open the database read-only, never creating or migrating it
   * (a missing file fails with `OPEN_FAILED`, an empty or outdated one says
   * what to run).
   */
  readOnly?: boolean | undefined;
  /** How long a write waits for another process's lock, in ms (default 5000). */
  busyTimeoutMs?: number;
}

/**
 * Open the SQLite store at `options.path`. A file that is not atlatl's
 * (non-empty, no atlatl marker) is refused before anything is written to it.
 * To write: created if needed (parent directories 0700, the file 0600; SQLite
 * gives its `-wal`/`-shm` files the database file's mode), WAL journal,
 * `synchronous=NORMAL` (a killed process loses no committed transaction),
 * migrations applied. Read-only: opened as such, never created or migrated.
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteMemoryStore> {
  const memory = options.path === ":memory:";
  const path = memory ? options.path : resolve(options.path);
  const readOnly = options.readOnly === true && !memory;
  if (readOnly && !existsSync(path)) {
    throw new StoreError(
      "OPEN_FAILED",
      `no memory database at ${path}; check --db / ATLATL_STORE__PATH, or create one with \`atlatl import\`, \`atlatl seed\` or \`atlatl serve\``,
    );
  }
  let db: Database.Database;
  try {
    if (!memory && !readOnly) {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      try {
        closeSync(openSync(path, "wx", 0o600));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
    }
    db = readOnly ? openReadOnly(path) : new Database(path);
  } catch (err) {
    if (err instanceof StoreError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new StoreError("OPEN_FAILED", `cannot open the memory database ${path}: ${message}`, {
      cause: err,
    });
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    // Before any pragma that writes (the journal mode is in the file header).
    const kind = requireOurs(db, path);
    if (readOnly) return new SqliteMemoryStore(db, readableVersion(db, kind, path));
    if (!memory) db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("temp_store = MEMORY");
    // 64 MiB of page cache and a larger WAL between checkpoints: bulk imports
    // insert into several indexes at random positions, and every checkpoint
    // is an fsync (measured: +40 % import throughput at 100,000 memories).
    db.pragma("cache_size = -65536");
    db.pragma("wal_autocheckpoint = 10000");
    return new SqliteMemoryStore(db, migrate(db));
  } catch (err) {
    db.close();
    throw storeError(err, `cannot prepare the memory database ${path}`);
  }
}

/** What SQLite answers when it cannot create a WAL database's `-shm` file. */
const NO_SHARED_INDEX = new Set([
  "SQLITE_READONLY_DIRECTORY",
  "SQLITE_READONLY_CANTINIT",
  "SQLITE_CANTOPEN",
]);

/** Offsets of the file format's write and read versions in the header: 2 is WAL, 1 is rollback. */
const FORMAT_VERSION_BYTES = [18, 19] as const;

/** `path` opened read-only (it must exist); see the module comment. */
function openReadOnly(path: string): Database.Database {
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
