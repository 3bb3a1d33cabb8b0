/**
 * Writes of one memory row together with its full-text entry and tag rows. The
 * caller runs these inside a transaction; the three stay consistent because
 * nothing else writes them.
 */
import type Database from "better-sqlite3";
import type { PreparedRow } from "./row.js";

// Positional parameters: binding a named-parameter object costs better-sqlite3
// about as much as the row insert itself (measured), and bulk import is hot.
const INSERT_SQL = `INSERT INTO memories
  (id, memory_type, status, namespace, created_ms, modified_ms, confidence, created, modified, title, tags, content, doc)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const UPDATE_SQL = `UPDATE memories SET
  memory_type = ?, status = ?, namespace = ?, created_ms = ?, modified_ms = ?, confidence = ?,
  created = ?, modified = ?, title = ?, tags = ?, content = ?, doc = ?
  WHERE id = ?`;

/** What an update needs to know of the stored row. */
export interface StoredText {
  seq: number;
  title: string;
  content: string;
  tags: string;
}

/** Prepared write statements over one connection. */
export class RowWriter {
  private readonly findStmt: Database.Statement;
  private readonly insertStmt: Database.Statement;
  private readonly updateStmt: Database.Statement;
  private readonly deleteStmt: Database.Statement;
  private readonly ftsInsert: Database.Statement;
  private readonly ftsDelete: Database.Statement;
  private readonly tagInsert: Database.Statement;
  private readonly tagDelete: Database.Statement;
  private readonly bumpEpoch: Database.Statement;

  constructor(db: Database.Database) {
    this.findStmt = db.prepare("SELECT seq, title, content, tags FROM memories WHERE id = ?");
    this.insertStmt = db.prepare(INSERT_SQL);
    this.updateStmt = db.prepare(UPDATE_SQL);
    this.deleteStmt = db.prepare("DELETE FROM memories WHERE seq = ?");
    this.ftsInsert = db.prepare(
      "INSERT INTO memories_fts (rowid, title, content, tags) VALUES (CAST(? AS INTEGER), ?, ?, ?)",
    );
    // CAST: FTS5 ignores a rowid constraint bound as a REAL (every JS number
    // binds as one) and would then visit, here delete, every row.
    this.ftsDelete = db.prepare("DELETE FROM memories_fts WHERE rowid = CAST(? AS INTEGER)");
    this.tagInsert = db.prepare("INSERT OR IGNORE INTO memory_tags (tag, seq) VALUES (?, ?)");
    this.tagDelete = db.prepare("DELETE FROM memory_tags WHERE tag = ? AND seq = ?");
    this.bumpEpoch = db.prepare("UPDATE store_meta SET value = value + 1 WHERE key = 'epoch'");
  }

  /** Mark a write transaction (call once inside each). */
  touch(): void {
    this.bumpEpoch.run();
  }

  /** The stored text of memory `id`, if any. */
  find(id: string): StoredText | undefined {
    return this.findStmt.get(id) as StoredText | undefined;
  }

  /** Insert a new row; a duplicate id fails on the UNIQUE constraint. */
  insert({ row, tags }: PreparedRow): number {
    const seq = Number(
      this.insertStmt.run(
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
      ).lastInsertRowid,
    );
    this.ftsInsert.run(seq, row.title, row.content, row.tags);
    for (const tag of tags) this.tagInsert.run(tag, seq);
    return seq;
  }

  /** Replace the row of `stored`; re-index only what changed (idempotent re-imports stay cheap). */
  update({ row, tags }: PreparedRow, stored: StoredText): void {
    this.updateStmt.run(
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
      row.id,
    );
    if (stored.title !== row.title || stored.content !== row.content || stored.tags !== row.tags) {
      this.ftsDelete.run(stored.seq);
      this.ftsInsert.run(stored.seq, row.title, row.content, row.tags);
    }
    if (stored.tags !== row.tags) {
      this.removeTags(stored);
      for (const tag of tags) this.tagInsert.run(tag, stored.seq);
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
