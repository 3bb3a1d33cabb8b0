import type { Command } from "commander";
import { loadServerConfig } from "../../config/server-config.js";
import { loadHttpConfig } from "../../http/http-config.js";
import { globalOverrides } from "../global-options.js";
import { renderTable } from "../table.js";

/** `atlatl config`: the effective configuration and where each value came from. */
export function runConfig(opts: { json?: boolean }, cmd: Command): void {
  const loaded = loadServerConfig(globalOverrides(cmd));
  // `[server.http]` too, its token values replaced by their count.
  const config = {
    ...loaded,
    entries: [...loaded.entries, ...loadHttpConfig(loaded.configFile, process.env).entries],
  };
  if (opts.json) {
    process.stdout.write(
      `${JSON.stringify({ config_file: config.configFile, entries: config.entries }, null, 2)}\n`,
    );
    return;
  }
  process.stdout.write(`config file: ${config.configFile ?? "(none)"}\n\n`);
  const rows = config.entries.map((e) => [e.key, JSON.stringify(e.value), e.source, e.env]);
  process.stdout.write(
    `${renderTable(["key", "value", "source", "environment variable"], rows)}\n`,
  );
}
