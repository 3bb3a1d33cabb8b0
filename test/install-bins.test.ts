/**
 * `npm run install-bins` (the README's second set-up command) puts `atlatl`,
 * `atlatl-proxy` and `atlatl-eval` on the PATH from the clone: here into a
 * throw-away prefix, each bin run from a directory outside the clone. The HTTP
 * server the README starts with the installed command stops on SIGTERM and lets
 * go of its port (under `npx`, SIGTERM reached npx and the server went on).
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
let prefix = "";
let elsewhere = "";

/** A child npm's environment: none of the `npm test` run's own npm_* settings. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.toLowerCase().startsWith("npm_")) env[k] = v;
  }
  return { ...env, ...extra };
}

const bin = (name: string) => join(prefix, "bin", name);

beforeAll(async () => {
  prefix = mkdtempSync(join(tmpdir(), "atlatl-prefix-"));
  elsewhere = mkdtempSync(join(tmpdir(), "atlatl-elsewhere-"));
  await run("npm", ["run", "install-bins", "--", "--prefix", prefix], {
    cwd: root,
    env: cleanEnv(),
  });
}, 120_000);

afterAll(() => {
  rmSync(prefix, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

function portOpen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => done(false));
  });
}

describe("npm run install-bins", () => {
  it("puts atlatl, atlatl-proxy and atlatl-eval on the prefix's PATH, runnable from anywhere", async () => {
    for (const name of ["atlatl", "atlatl-proxy", "atlatl-eval"]) {
      const { stdout } = await run(bin(name), ["--help"], { cwd: elsewhere, env: cleanEnv() });
      expect(stdout, name).toMatch(new RegExp(`Usage: ${name}`));
    }
    const { stdout } = await run(bin("atlatl"), ["--version"], { cwd: elsewhere, env: cleanEnv() });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("`atlatl serve --http` stops on SIGTERM and frees its port", async () => {
    const child = spawn(
      bin("atlatl"),
      ["serve", "--http", "--port", "0", "--db", join(elsewhere, "m.db")],
      {
        cwd: elsewhere,
        env: cleanEnv({ ATLATL_CONFIG: "" }),
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    const port = await new Promise<number>((done, fail) => {
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
        if (m) done(Number(m[1]));
      });
      child.once("exit", () => fail(new Error(`exited before listening: ${stderr}`)));
    });
    expect(await portOpen(port)).toBe(true);
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const [code, signal] = await exited;
    expect(signal, stderr).toBe(null);
    expect(code, stderr).toBe(0);
    expect(await portOpen(port)).toBe(false);
  });
});
