import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { OFFLOAD_CONFIG_KEYS } from "@atlatl/lro/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const serverRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(serverRoot, "src/cli/main.ts");
const node = [process.execPath, "--conditions=source", "--import", "tsx", cli] as const;

let dir: string;
const env = () => ({
  ...process.env,
  ATLATL_CONFIG: "",
  ATLATL_STORE__PATH: join(dir, "pipes.db"),
});

function atlatl(args: string[]) {
  const [cmd, ...rest] = node;
  const r = spawnSync(cmd, [...rest, ...args], {
    cwd: serverRoot,
    encoding: "utf8",
    env: env(),
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Run the CLI with a reader that closes the pipe after the first chunk, as
 * `| head -1` does; resolves with the exit code and stderr.
 */
function atlatlIntoClosedPipe(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const [cmd, ...rest] = node;
  const child = spawn(cmd, [...rest, ...args], {
    cwd: serverRoot,
    env: env(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  child.stdout.once("data", () => child.stdout.destroy());
  return new Promise((done) => child.on("close", (code) => done({ code, stderr })));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "atlatl-pipes-"));
  // Enough output (~1 MB as JSON) that the writer outlives the reader.
  expect(atlatl(["seed", "--count", "1500", "--seed", "5"]).code).toBe(0);
}, 60_000);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("a closed stdout pipe ends a command quietly", () => {
  for (const args of [
    ["list", "--json", "--limit", "1000"],
    ["recall", "", "--json", "--limit", "1000"],
    ["export"],
  ]) {
    it(`atlatl ${args.join(" ")} | head -1 exits 0 without a stack trace`, async () => {
      const r = await atlatlIntoClosedPipe(args);
      expect(r.stderr).not.toMatch(/EPIPE|Error|at /);
      expect(r.code).toBe(0);
    }, 60_000);
  }
});

describe("export -o into a missing directory", () => {
  it("says which directory is missing, exits 1 and creates nothing", () => {
    const target = join(dir, "missing", "dir", "x.json");
    const r = atlatl(["export", "-o", target]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot write ${target}`);
    expect(r.stderr).toContain(`the directory ${join(dir, "missing", "dir")} does not exist`);
    expect(r.stderr).not.toMatch(/ENOENT/);
  });
});

describe("serve flags use the config keys' bounds", () => {
  it("refuses --threshold above prompt.offload.threshold_tokens's maximum before starting", () => {
    const max = OFFLOAD_CONFIG_KEYS.threshold_tokens.max;
    const r = atlatl(["serve", "--threshold", String(max + 1)]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`--threshold must be an integer from 1 to ${max}`);
    expect(r.stderr).not.toMatch(/serving MCP/);
  });
});

describe("import of a file of many bad documents", () => {
  it("lists the first rejections, counts the rest and exits 1", () => {
    const file = join(dir, "numbers.json");
    writeFileSync(file, `[${Array.from({ length: 5000 }, (_, i) => i).join(",")}]`);
    const r = atlatl(["import", file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/imported 0 new, updated 0, rejected 5000/);
    expect(r.stderr.match(/^rejected /gm)).toHaveLength(100);
    expect(r.stderr).toMatch(/… and 4900 more rejections not listed/);
  });
});
