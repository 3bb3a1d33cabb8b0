import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { declareOffloadsLocally } from "@atlatl/lro/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { serverRoot } from "../e2e/spawn-server.js";

const cli = ["--conditions=source", "--import", "tsx", join(serverRoot, "src/cli/main.ts")];

export interface HttpServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  dir: string;
  dbPath: string;
  outputDir: string;
  child: ChildProcess;
  stderr: () => string;
  /** A connected SDK client (token and clientInfo as given). */
  connect(options?: { token?: string | null; proxy?: boolean; name?: string }): Promise<Client>;
  /** SIGTERM, wait for exit; returns the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Start `atlatl serve --http --port 0` as a real process over a fresh database
 * (seeded with `atlatl seed` when `seed` is given) and wait for the bound
 * address it prints on stderr.
 */
export async function startHttpServer(
  options: {
    tokens?: string;
    seed?: number;
    env?: Record<string, string>;
    args?: string[];
    /** Store arguments and environment (a backend's `serverConfig`); default `--db` in the temp dir. */
    store?: { args: string[]; env: Record<string, string> };
  } = {},
): Promise<HttpServer> {
  const dir = mkdtempSync(join(tmpdir(), "atlatl-http-"));
  const dbPath = join(dir, "atlatl.db");
  const outputDir = join(dir, "offload");
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ATLATL_CONFIG: "",
    ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: outputDir,
    ...(options.tokens !== undefined ? { ATLATL_SERVER__HTTP__TOKENS: options.tokens } : {}),
    ...options.store?.env,
    ...options.env,
  };
  const storeArgs = options.store?.args ?? ["--db", dbPath];
  if (options.seed) {
    execFileSync(process.execPath, [...cli, ...storeArgs, "seed", "-n", String(options.seed)], {
      cwd: serverRoot,
      env,
      stdio: "ignore",
    });
  }
  const child = spawn(
    process.execPath,
    [...cli, ...storeArgs, "serve", "--http", "--port", "0", ...(options.args ?? [])],
    { cwd: serverRoot, env, stdio: ["ignore", "ignore", "pipe"] },
  );
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address printed:\n${err}`)), 30_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
      const m = /listening on (http:\/\/\S+)\/mcp/.exec(err);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${err}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const clients: Client[] = [];
  return {
    url,
    dir,
    dbPath,
    outputDir,
    child,
    stderr: () => err,
    async connect({
      token = options.tokens?.split(",")[0],
      proxy = false,
      name = "atlatl-http-test",
    } = {}) {
      const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
      });
      // An LRO proxy: the specification's clientInfo flag and the capability atlatl reads.
      const client = new Client(
        { name, version: "1.0.0", ...(proxy ? { proxy: true } : {}) },
        proxy ? { capabilities: declareOffloadsLocally({}) } : undefined,
      );
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async stop() {
      for (const c of clients) await c.close().catch(() => {});
      child.kill("SIGTERM");
      const code = await exited;
      rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}
