import { InvalidArgumentError } from "commander";
import type { App } from "../../app/open-app.js";
import { loadHttpConfig } from "../../http/http-config.js";
import { startHttpServer } from "../../http/start-http.js";
import { fail } from "../fail.js";

/** `--port`: 0 (any free port) to 65535. */
export function portArg(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) {
    throw new InvalidArgumentError("--port must be an integer from 0 to 65535.");
  }
  return n;
}

/**
 * `atlatl serve --http`: resolve `[server.http]`, listen, print the bound
 * address on stderr (`atlatl: listening on http://127.0.0.1:PORT/mcp`), and
 * shut down gracefully on SIGTERM/SIGINT.
 */
export async function runServeHttp(
  app: App,
  opts: { host?: string | undefined; port?: number | undefined },
): Promise<void> {
  let running: Awaited<ReturnType<typeof startHttpServer>>;
  try {
    const http = loadHttpConfig(app.config.configFile, process.env, {
      host: opts.host,
      port: opts.port,
    });
    running = await startHttpServer(app, http);
    if (http.tokens.length === 0) {
      process.stderr.write(
        "atlatl: no bearer token configured: only clients on this machine can connect " +
          "(set ATLATL_SERVER__HTTP__TOKENS to require one)\n",
      );
    }
  } catch (err) {
    await app.close().catch(() => {});
    return fail(err);
  }
  const stop = () => {
    void running.close().then(() => process.exit(0));
  };
  // Before the ready line: a supervisor may stop us as soon as it reads it.
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  process.stderr.write(`atlatl: listening on ${running.url}/mcp\n`);
}
