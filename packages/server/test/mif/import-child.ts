/**
 * Child process of the kill test: imports a JSONL file into a store (a SQLite
 * path or a postgres:// URL) and prints every acknowledged batch
 * (`ACK id,id,...`) to stderr, then `DONE`.
 * Usage: node --conditions=source --import tsx import-child.ts DB|URL FILE BATCH_SIZE
 */
import { importPath } from "../../src/mif/import.js";
import { openStore } from "../../src/store/open-store.js";

const [target, file, batchSize] = process.argv.slice(2);
if (!target || !file) throw new Error("usage: import-child.ts DB|URL FILE [BATCH_SIZE]");
const store = await openStore(
  target.startsWith("postgres") ? { path: "", url: target } : { path: target },
);
const report = await importPath(store, file, {
  batchSize: Number(batchSize ?? 500),
  onCommitted: (ids) => process.stderr.write(`ACK ${ids.join(",")}\n`),
});
await store.close();
process.stderr.write(`DONE ${report.imported} ${report.updated} ${report.rejectedCount}\n`);
