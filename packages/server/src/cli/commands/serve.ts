import { ensureOutputDirAtStart } from "@atlatl/lro/node";
import type { Command } from "commander";
import { openApp } from "../../app/open-app.js";
import { globalOverrides } from "../global-options.js";
import { runServeHttp } from "./serve-http.js";
import { serveStdioApp } from "./serve-stdio.js";

interface ServeOptions {
  threshold?: number;
  outputDir?: string;
  ttl?: number;
  /** commander's `--no-offload`: false when given. */
  offload: boolean;
  /** `--extract-tool` / `--no-extract-tool`; absent: the config's (`auto` by default). */
  extractTool?: boolean;
  /** `--http` (with `--host`, `--port`): Streamable HTTP instead of stdio. */
  http?: boolean;
  host?: string;
  port?: number;
}

/** `atlatl serve`: MCP over stdio (`serve-stdio.ts`), or Streamable HTTP with `--http`. */
export async function runServe(opts: ServeOptions, cmd: Command): Promise<void> {
  const app = await openApp({
    ...globalOverrides(cmd),
    offload: {
      ...(opts.threshold !== undefined ? { thresholdTokens: opts.threshold } : {}),
      ...(opts.outputDir !== undefined ? { outputDir: opts.outputDir } : {}),
      ...(opts.ttl !== undefined ? { ttlSeconds: opts.ttl } : {}),
      ...(opts.offload === false ? { enabled: false } : {}),
      ...(opts.extractTool !== undefined ? { extractTool: opts.extractTool ? "on" : "off" } : {}),
    },
    sharedOffloads: opts.http === true,
  });
  await ensureOutputDirAtStart(app.config.offload, (m) => process.stderr.write(`atlatl: ${m}\n`));
  if (opts.http) return runServeHttp(app, opts);
  serveStdioApp(app);
}
