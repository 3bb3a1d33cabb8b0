import { listOffloadFiles, sweepOffloadDir } from "@atlatl/lro/node";
import type { Command } from "commander";
import { loadServerConfig } from "../../config/server-config.js";
import { globalOverrides } from "../global-options.js";
import { renderTable } from "../table.js";

/** `atlatl offload ls`: live offload files in the configured output directory. */
export async function runOffloadLs(
  opts: { all?: boolean; json?: boolean },
  cmd: Command,
): Promise<void> {
  const { offload } = loadServerConfig(globalOverrides(cmd));
  const files = await listOffloadFiles(offload.outputDir, {
    ttlSeconds: offload.ttlSeconds,
    includeExpired: opts.all === true,
  });
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(files, null, 2)}\n`);
    return;
  }
  const now = Date.now();
  const rows = files.map((f) => [
    f.name,
    f.operation,
    String(f.bytes),
    new Date(f.createdAt).toISOString(),
    f.expiresAt <= now ? "expired" : `${Math.round((f.expiresAt - now) / 1000)} s`,
  ]);
  process.stdout.write(`${offload.outputDir}\n\n`);
  process.stdout.write(
    `${renderTable(["file", "operation", "bytes", "created", "expires in"], rows)}\n`,
  );
}

/** `atlatl offload sweep`: delete expired offload files and orphaned temporary files now. */
export async function runOffloadSweep(opts: { json?: boolean }, cmd: Command): Promise<void> {
  const { offload } = loadServerConfig(globalOverrides(cmd));
  const result = await sweepOffloadDir({ dir: offload.outputDir, ttlSeconds: offload.ttlSeconds });
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `swept ${offload.outputDir}: ${result.expired.length} expired, ${result.orphans.length} orphaned temporary, ${result.kept} kept, ${result.foreign} not ours (left alone)\n`,
  );
  for (const e of result.errors) process.stderr.write(`could not delete ${e.path}: ${e.error}\n`);
}
