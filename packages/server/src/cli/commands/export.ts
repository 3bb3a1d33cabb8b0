import type { Command } from "commander";
import { exportMemories } from "../../mif/export.js";
import { openOutputFile } from "../open-output.js";
import { withApp } from "../with-app.js";

/** `atlatl export`: MIF JSON-LD (default) or JSONL, to stdout or `--out FILE`. */
export async function runExport(
  opts: { format: "mif-json" | "jsonl"; out?: string; namespace?: string },
  cmd: Command,
): Promise<void> {
  const file = opts.out ? await openOutputFile(opts.out) : undefined;
  await withApp(cmd, async (app) => {
    const report = await exportMemories(
      app.store,
      {
        format: opts.format,
        ...(opts.namespace ? { filter: { namespace: opts.namespace, status: "any" } } : {}),
      },
      file ?? process.stdout,
    );
    if (file) {
      await file.close();
      process.stderr.write(`exported ${report.count} memories to ${opts.out}\n`);
    }
  });
}
