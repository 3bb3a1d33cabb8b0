/**
 * Writes of one memory row together with its full-text entry and tag rows. The
 * caller runs these inside a transaction; the three stay consistent because
 * nothing else writes them.
 */
import type Database from "better-sqlite3";
import type { PreparedRow, RowParams } from "../memory-row.js";

// Positional parameters: binding a named-parameter object costs better-sqlite3
// about as much as the row insert itself (measured), and bulk import is hot.
const INSERT_SQL = `INSERT INTO memories
  (id, memory_type, status, namespace, created_ms, modified_ms, confidence, created, modified, title, tags, content, doc)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The same insert, yielding no row when the id exists (upserts then update instead). */
const TRY_INSERT_SQL = `${INSERT_SQL} ON CONFLICT (id) DO NOTHING`;

const UPDATE_SQL = `UPDATE memories SET
  memory_type = ?, status = ?, namespace = ?, created_ms = ?, modified_ms = ?, confidence = ?,
  created = ?, modified = ?, title = ?, tags = ?, content = ?, doc = ?
  WHERE id = ?`;

/** True when `row` holds exactly what `stored` holds. */
export function unchanged(row: RowParams, stored: StoredText): boolean {
  return (
    row.title === stored.title &&
    row.content === stored.content &&
    row.tags === stored.tags &&
    row.doc === stored.doc &&
    row.memory_type === stored.memory_type &&
    row.status === stored.status &&
    row.namespace === stored.namespace &&
    row.created_ms === stored.created_ms &&
    row.modified_ms === stored.modified_ms &&
    row.confidence === stored.confidence &&
    row.created === stored.created &&
    row.modified === stored.modified
  );
}

/** The row's values in INSERT column order. */
function columns(row: RowParams): unknown[] {
  return [
    row.id,
    row.memory_type,
    row.status,
    row.namespace,
    row.created_ms,
    row.modified_ms,
    row.confidence,
    row.created,
    row.modified,
    row.title,
    row.tags,
    row.content,
    row.doc,
  ];
}

/** What an update needs to know of the stored row: every column, to skip rewriting an unchanged one. */
type StoredText = Omit<RowParams, "id"> & { seq: number };

/** Prepared write statements over one connection. */
export class RowWriter {
  private readonly findStmt: Database.Statement;
  private readonly insertStmt: Database.Statement;
  private readonly tryInsertStmt: Database.Statement;
  private readonly tagInserts = new Map<number, Database.Statement>();
  private readonly db: Database.Database;
  private readonly updateStmt: Database.Statement;
  private readonly deleteStmt: Database.Statement;
  private readonly ftsInsert: Database.Statement;
  private readonly ftsDelete: Database.Statement;
  private readonly tagDelete: Database.Statement;
  private readonly bumpEpoch: Database.Statement;

  constructor(db: Database.Database) {
    this.findStmt = db.prepare(
      `SELECT seq, title, content, tags, memory_type, status, namespace, created_ms, modified_ms,
         confidence, created, modified, doc FROM memories WHERE id = ?`,
    );
    this.db = db;
    this.insertStmt = db.prepare(INSERT_SQL);
    this.tryInsertStmt = db.prepare(TRY_INSERT_SQL);
    this.updateStmt = db.prepare(UPDATE_SQL);
    this.deleteStmt = db.prepare("DELETE FROM memories WHERE seq = ?");
    this.ftsInsert = db.prepare(
      "INSERT INTO memories_fts (rowid, title, content, tags) VALUES (CAST(? AS INTEGER), ?, ?, ?)",
    );
    // CAST: FTS5 ignores a rowid constraint bound as a REAL (every JS number
    // binds as one) and would then visit, here delete, every row.
    this.ftsDelete = db.prepare("DELETE FROM memories_fts WHERE rowid = CAST(? AS INTEGER)");
    this.tagDelete = db.prepare("DELETE FROM memory_tags WHERE tag = ? AND seq = ?");
    this.bumpEpoch = db.prepare("UPDATE store_meta SET value = value + 1 WHERE key = 'epoch'");
  }

  /** Write transactions this connection began (its own commits do not move `PRAGMA data_version`). */
  writes = 0;

  /** Mark a write transaction (call once inside each). */
  touch(): void {
    this.writes++;
    this.bumpEpoch.run();
  }

  /** The stored text of memory `id`, if any. */
  find(id: string): StoredText | undefined {
    return this.findStmt.get(id) as StoredText | undefined;
  }

  /** Insert a new row; a duplicate id fails on the UNIQUE constraint. */
  insert(prepared: PreparedRow): number {
    const seq = Number(this.insertStmt.run(...columns(prepared.row)).lastInsertRowid);
    this.indexNew(prepared, seq);
    return seq;
  }

  /**
   * Insert a new row, or do nothing and return undefined when the id exists:
   * a bulk import of new memories then costs no lookup before each insert.
   */
  tryInsert(prepared: PreparedRow): number | undefined {
    const info = this.tryInsertStmt.run(...columns(prepared.row));
    if (info.changes === 0) return undefined;
    const seq = Number(info.lastInsertRowid);
    this.indexNew(prepared, seq);
    return seq;
  }

  private indexNew({ row, tags }: PreparedRow, seq: number): void {
    this.ftsInsert.run(seq, row.title, row.content, row.tags);
    this.insertTags(tags, seq);
  }

  /** All tags of a memory in one statement (one call instead of one per tag). */
  private insertTags(tags: readonly string[], seq: number): void {
    if (tags.length === 0) return;
    let stmt = this.tagInserts.get(tags.length);
    if (!stmt) {
      const values = Array.from({ length: tags.length }, () => "(?, ?)").join(", ");
      stmt = this.db.prepare(`INSERT OR IGNORE INTO memory_tags (tag, seq) VALUES ${values}`);
      this.tagInserts.set(tags.length, stmt);
    }
    const params: unknown[] = [];
    for (const tag of tags) params.push(tag, seq);
    stmt.run(...params);
  }

  /**
   * Replace the row of `stored`; re-index only what changed, and write nothing
   * when nothing changed (re-importing the same memories stays cheap).
   */
  update({ row, tags }: PreparedRow, stored: StoredText): void {
    if (unchanged(row, stored)) return;
    const values = columns(row);
    // UPDATE takes the id last.
    values.push(values.shift());
    this.updateStmt.run(...values);
    if (stored.title !== row.title || stored.content !== row.content || stored.tags !== row.tags) {
      this.ftsDelete.run(stored.seq);
      this.ftsInsert.run(stored.seq, row.title, row.content, row.tags);
    }
    if (stored.tags !== row.tags) {
      this.removeTags(stored);
      this.insertTags(tags, stored.seq);
    }
  }

  /** Delete the row of `stored` and its index entries. */
  remove(stored: StoredText): void {
    this.ftsDelete.run(stored.seq);
    this.removeTags(stored);
    this.deleteStmt.run(stored.seq);
  }

  private removeTags(stored: StoredText): void {
    for (const tag of JSON.parse(stored.tags) as string[]) this.tagDelete.run(tag, stored.seq);
  }
}
