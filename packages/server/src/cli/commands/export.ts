import { createWriteStream } from "node:fs";
import { finished } from "node:stream/promises";
import type { Command } from "commander";
import { exportMemories } from "../../mif/export.js";
import { withApp } from "../with-app.js";

/** `atlatl export`: MIF JSON-LD (default) or JSONL, to stdout or `--out FILE`. */
export async function runExport(
  opts: { format: "mif-json" | "jsonl"; out?: string; namespace?: string },
  cmd: Command,
): Promise<void> {
  await withApp(cmd, async (app) => {
    const out = opts.out ? createWriteStream(opts.out, { mode: 0o600 }) : process.stdout;
    const report = await exportMemories(
      app.store,
      {
        format: opts.format,
        ...(opts.namespace ? { filter: { namespace: opts.namespace, status: "any" } } : {}),
      },
      out,
    );
    if (opts.out) {
      out.end();
      await finished(out);
      process.stderr.write(`exported ${report.count} memories to ${opts.out}\n`);
    }
  });
}
