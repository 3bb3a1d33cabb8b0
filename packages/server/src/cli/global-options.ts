import type { Command } from "commander";
import type { ServerConfigOverrides } from "../config/server-config.js";

/** The config overrides every command shares (`--config`, `--db`, `--database`). */
export function globalOverrides(cmd: Command): ServerConfigOverrides {
  const globals = cmd.optsWithGlobals<{ config?: string; db?: string; database?: string }>();
  return { configFile: globals.config, dbPath: globals.db, databaseUrl: globals.database };
}
