import type Database from "better-sqlite3";

/** Prepared statements of one connection, one per distinct SQL text. */
export class StatementCache {
  private readonly cache = new Map<string, Database.Statement>();
  constructor(private readonly db: Database.Database) {}

  /** The prepared statement for `sql`, preparing it on first use. */
  get(sql: string): Database.Statement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }

  clear(): void {
    this.cache.clear();
  }
}
