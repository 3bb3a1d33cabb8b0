/**
 * Child process of the kill test: imports a JSONL file into a SQLite database and
 * prints every acknowledged batch (`ACK id,id,...`) to stderr, then `DONE`.
 * Usage: node --conditions=source --import tsx import-child.ts DB FILE BATCH_SIZE
 */
import { importPath } from "../../src/mif/import.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";

const [dbPath, file, batchSize] = process.argv.slice(2);
if (!dbPath || !file) throw new Error("usage: import-child.ts DB FILE [BATCH_SIZE]");
const store = await openSqliteStore({ path: dbPath });
const report = await importPath(store, file, {
  batchSize: Number(batchSize ?? 500),
  onCommitted: (ids) => process.stderr.write(`ACK ${ids.join(",")}\n`),
});
await store.close();
process.stderr.write(`DONE ${report.imported} ${report.updated} ${report.rejectedCount}\n`);
