import type { Command } from "commander";
import { importPath } from "../../mif/import.js";
import { startProgress } from "../progress.js";
import { withWritableApp } from "../with-app.js";

/**
 * `atlatl import PATH`: MIF JSON, MIF Markdown or JSONL, a file or a directory.
 * Rejected documents are listed with file and JSON pointer; the exit code is 1
 * when any was rejected, so scripts notice.
 */
export async function runImport(
  path: string,
  opts: { batchSize: number; json?: boolean },
  cmd: Command,
): Promise<void> {
  const report = await withWritableApp(cmd, async (app) => {
    const bar = startProgress("import", undefined);
    try {
      return await importPath(app.store, path, {
        batchSize: opts.batchSize,
        onProgress: (p) => bar.update(p.bytesDone, p.bytesTotal),
      });
    } finally {
      bar.stop();
    }
  });
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(
      `imported ${report.imported} new, updated ${report.updated}, rejected ${report.rejectedCount} (from ${report.files} file${report.files === 1 ? "" : "s"})\n`,
    );
    for (const r of report.rejected) {
      const where = `${r.file}${r.line !== undefined ? `:${r.line}` : ""}${r.pointer ? ` ${r.pointer}` : ""}`;
      process.stderr.write(`rejected ${where}: ${r.message}\n`);
    }
    const unlisted = report.rejectedCount - report.rejected.length;
    if (unlisted > 0) process.stderr.write(`… and ${unlisted} more rejections not listed\n`);
  }
  if (report.rejectedCount > 0) process.exitCode = 1;
}
