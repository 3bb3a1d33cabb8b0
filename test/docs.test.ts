/**
 * Every example of docs/*.md and packages/*\/README.md that can run here, runs
 * (and README.md's, but its ```sh blocks, which readme.test.ts runs), each from a throw-away
 * directory with a throw-away HOME and the built CLIs (`atlatl`,
 * `atlatl-proxy`, `atlatl-eval`) on PATH:
 *
 *   ```sh / ```bash  run by `bash -e -o pipefail`; must exit 0
 *   ```toml          must load as atlatl's configuration (`atlatl config --config FILE`:
 *                    unknown keys and wrong types are refused), and as atlatl-proxy's
 *                    when it has `[proxy...]` tables
 *   ```json          must parse
 *   ```ts            run by Node with tsx from inside the workspace (its imports resolve
 *                    as a user's); a `console.log(...); // => text` line must print `text`
 *
 * Any other block, or one that cannot run here, is marked on the line before it:
 *
 *   <!-- doc-test: skip (reason) -->         not run (a paid API, another machine, a release step)
 *   <!-- doc-test: serve (reason) -->        a server that runs until stopped: run with
 *                                            ATLATL_SERVER__HTTP__PORT=0 until it prints the
 *                                            `# on stderr:` line the block shows (any port), then stopped
 *   <!-- doc-test: with-server (reason) -->  run while a fresh `atlatl serve --http` listens,
 *                                            its token in ATLATL_SERVER__HTTP__TOKENS and its
 *                                            address in place of 127.0.0.1:8080
 *
 * The ```js servers of packages/lro/README.md are run by packages/lro/test/readme-servers.test.ts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProxyConfig } from "../packages/proxy/src/config/proxy-config.js";
import { cleanEnv, type DocBlock, docBlocks, homeEnv } from "./doc-blocks.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The documents, relative to the root. */
const DOCUMENTS = [
  ...readdirSync(join(root, "docs"))
    .filter((n) => n.endsWith(".md"))
    .map((n) => `docs/${n}`),
  ...readdirSync(join(root, "packages"))
    .map((p) => `packages/${p}/README.md`)
    .filter((doc) => existsSync(join(root, doc))),
].sort();

/** Blocks another test runs: the document, the language, and that test. */
const COVERED = [
  { doc: "packages/lro/README.md", lang: "js", by: "packages/lro/test/readme-servers.test.ts" },
];

const RUNNABLE = new Set(["sh", "bash", "toml", "json", "ts"]);
const MARKERS = new Set(["skip", "serve", "with-server"]);
const BINS = {
  atlatl: "packages/server/bin/atlatl.js",
  "atlatl-proxy": "packages/proxy/bin/atlatl-proxy.js",
  "atlatl-eval": "packages/eval/bin/atlatl-eval.js",
};
const TOKEN = "doc-test-token-0123456789abcdef";

interface Located extends DocBlock {
  doc: string;
}

const blocks: Located[] = [
  ...DOCUMENTS.flatMap((doc) =>
    docBlocks(readFileSync(join(root, doc), "utf8"), "doc-test").map((b) => ({ ...b, doc })),
  ),
  ...docBlocks(readFileSync(join(root, "README.md"), "utf8"), "doc-test")
    .filter((b) => b.lang !== "sh")
    .map((b) => ({ ...b, doc: "README.md" })),
];
const covered = (b: Located) => COVERED.some((c) => c.doc === b.doc && c.lang === b.lang);

let work = "";
let env: Record<string, string> = {};
/** Inside the workspace (node_modules/.cache is ignored by git), so bare imports resolve. */
let scripts = "";

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "atlatl-docs-"));
  const bin = join(work, "bin");
  mkdirSync(bin);
  for (const [name, path] of Object.entries(BINS)) symlinkSync(join(root, path), join(bin, name));
  const home = join(work, "home");
  mkdirSync(home);
  env = cleanEnv({
    ...homeEnv(home),
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    // Not the machine's shared default directory: what the examples offload stays here.
    ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: join(work, "offload"),
  });
  const cache = join(root, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  scripts = mkdtempSync(join(cache, "atlatl-docs-"));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(scripts, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `command` in a fresh directory with the test's environment (and `extra`). */
async function run(
  command: string,
  args: string[],
  extra: Record<string, string> = {},
  cwd?: string,
): Promise<Ran> {
  const dir = cwd ?? mkdtempSync(join(work, "cwd-"));
  const child = spawn(command, args, {
    cwd: dir,
    env: { ...env, ...extra },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const code = await new Promise<number | null>((done) => child.once("exit", done));
  return { code, stdout, stderr };
}

const where = (b: Located) => `${b.doc}:${b.line}`;
const shown = (b: Located, r: Ran) =>
  `${where(b)}\n${b.code}\n--- stdout ---\n${r.stdout}\n--- stderr ---\n${r.stderr}`;

/** Run a ```ts block; every `// => text` of a console.log line must be printed, in order. */
async function runTs(b: Located, code: string, extra: Record<string, string> = {}): Promise<void> {
  const file = join(scripts, `${b.doc.replace(/\W/g, "-")}-${b.line}.mts`);
  writeFileSync(file, code);
  const r = await run(process.execPath, ["--import", "tsx", file], extra, scripts);
  expect(r.code, shown(b, r)).toBe(0);
  const expected = [...code.matchAll(/console\.log\(.*\);\s*\/\/ => (.+)$/gm)].map((m) => m[1]);
  expect(r.stdout.trimEnd().split("\n"), shown(b, r)).toEqual(expected);
}

/** A running `atlatl serve --http`: its address and how to stop it. */
interface Server {
  address: string;
  stop: () => Promise<void>;
}

/** Start `bash -c code` (a server), and wait until its stderr has a line matching `ready`. */
async function startServer(code: string, extra: Record<string, string>, ready: RegExp) {
  const child: ChildProcess = spawn("bash", ["-e", "-o", "pipefail", "-c", code], {
    cwd: mkdtempSync(join(work, "cwd-")),
    env: { ...env, ...extra },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  let stderr = "";
  const line = await new Promise<RegExpExecArray>((found, failed) => {
    child.stderr?.on("data", (c: Buffer) => {
      stderr += c.toString();
      const m = ready.exec(stderr);
      if (m) found(m);
    });
    child.once("exit", (status) => failed(new Error(`exited ${status} before ready:\n${stderr}`)));
  });
  const stop = async () => {
    const exited = new Promise((done) => child.once("exit", done));
    // The whole group: bash and the server it started.
    process.kill(-(child.pid as number), "SIGTERM");
    await exited;
  };
  return { line, stop };
}

const LISTENING = /atlatl: listening on (http:\/\/\S+)\/mcp/;

describe("docs/*.md, packages/*/README.md and README.md (but its sh blocks)", () => {
  it("mark every block they do not run, with a kind this test knows and a reason", () => {
    const unrun = blocks.filter((b) => !b.marker && !RUNNABLE.has(b.lang) && !covered(b));
    expect(unrun.map(where)).toEqual([]);
    for (const b of blocks) {
      if (b.marker) expect(MARKERS, where(b)).toContain(b.marker.kind);
    }
    for (const c of COVERED) {
      expect(readFileSync(join(root, c.by), "utf8")).toContain(`\`\`\`${c.lang}`);
    }
    // The documents that have examples, found: a rename would silently drop them.
    expect(blocks.filter((b) => !b.marker && RUNNABLE.has(b.lang)).length).toBeGreaterThanOrEqual(
      8,
    );
  });

  let server: Server | undefined;
  /** One `atlatl serve --http` for every with-server block, started on first use. */
  async function sharedServer(): Promise<Server> {
    if (!server) {
      const started = await startServer(
        `atlatl serve --http --port 0 --db ${join(work, "with-server.db")}`,
        { ATLATL_SERVER__HTTP__TOKENS: TOKEN },
        LISTENING,
      );
      server = { address: new URL(started.line[1] as string).host, stop: started.stop };
    }
    return server;
  }
  afterAll(async () => {
    await server?.stop();
  });

  for (const b of blocks) {
    if (b.marker?.kind === "skip" || covered(b)) continue;
    const kind = b.marker?.kind ?? b.lang;

    if (kind === "sh" || kind === "bash") {
      it(`runs the ${b.lang} block at ${where(b)}`, async () => {
        const r = await run("bash", ["-e", "-o", "pipefail", "-c", b.code]);
        expect(r.code, shown(b, r)).toBe(0);
      }, 60_000);
    } else if (kind === "toml") {
      it(`loads the TOML at ${where(b)} as the configuration`, async () => {
        const file = join(mkdtempSync(join(work, "toml-")), "config.toml");
        writeFileSync(file, b.code);
        const r = await run("atlatl", ["config", "--config", file, "--json"]);
        expect(r.code, shown(b, r)).toBe(0);
        if (/^\[proxy[.\]]/m.test(b.code)) {
          expect(() => loadProxyConfig({ configFile: file }, {})).not.toThrow();
        }
      }, 30_000);
    } else if (kind === "json") {
      it(`parses the JSON at ${where(b)}`, () => {
        expect(() => JSON.parse(b.code), where(b)).not.toThrow();
      });
    } else if (kind === "ts") {
      it(`runs the TypeScript at ${where(b)}`, () => runTs(b, b.code), 60_000);
    } else if (kind === "serve") {
      it(`starts the server of ${where(b)}, as its stderr line says`, async () => {
        const said = /^# on stderr: (.+)$/m.exec(b.code)?.[1];
        expect(said, `${where(b)}: the block shows its "# on stderr:" line`).toBeDefined();
        const pattern = (said as string)
          .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
          .replace(/:8080\//, ":\\d+/");
        const started = await startServer(
          b.code,
          { ATLATL_SERVER__HTTP__PORT: "0", ATLATL_STORE__PATH: join(work, "serve.db") },
          new RegExp(pattern),
        );
        await started.stop();
      }, 60_000);
    } else if (kind === "with-server") {
      it(`runs the ${b.lang} block at ${where(b)} against a running server`, async () => {
        const { address } = await sharedServer();
        const code = b.code.replaceAll("127.0.0.1:8080", address);
        const extra = { ATLATL_SERVER__HTTP__TOKENS: TOKEN };
        if (b.lang === "ts") return runTs(b, code, extra);
        const r = await run("bash", ["-e", "-o", "pipefail", "-c", code], extra);
        expect(r.code, shown(b, r)).toBe(0);
      }, 60_000);
    }
  }
});
