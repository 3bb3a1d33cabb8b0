/**
 * The default output directory is private: `{tmpdir}/atlatl-{uid}`, created
 * 0700, tightened when looser, refused when it is a symlink, not a directory,
 * or another user's. So "0600 files in a 0700 directory" holds by default.
 */
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LroEvents } from "../src/index.js";
import {
  defaultOutputDir,
  ensureOutputDir,
  ensureOutputDirAtStart,
  loadOffloadConfig,
  nodeOffloadFs,
  Offloader,
} from "../src/node.js";
import { tempDir } from "./fixtures/helpers.js";

let base: { dir: string; cleanup: () => void };
let savedTmp: string | undefined;

beforeEach(() => {
  base = tempDir("lro-default-dir-");
  savedTmp = process.env.TMPDIR;
  // os.tmpdir() reads TMPDIR on every call: the "system temp dir" of this test.
  process.env.TMPDIR = base.dir;
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  base.cleanup();
});

const uid = process.getuid?.() ?? -1;
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: { code?: string }) => err.code,
  );

describe("the default output directory", () => {
  it("is {tmpdir}/atlatl-{uid}, the config default", () => {
    expect(tmpdir()).toBe(base.dir);
    expect(defaultOutputDir()).toBe(join(base.dir, `atlatl-${uid}`));
    expect(loadOffloadConfig({ env: {} }).outputDir).toBe(defaultOutputDir());
  });

  it("is created 0700 and holds 0600 files", async () => {
    const o = new Offloader({
      config: {
        enabled: true,
        thresholdTokens: 10,
        ttlSeconds: 3600,
        outputDir: defaultOutputDir(),
      },
      events: new LroEvents({ sink: null }),
    });
    const r = await o.offloadRecords({
      operation: "recall",
      detail: "light",
      records: [{ id: "x", title: "t".repeat(200), namespace: "n", tags: [] }],
    });
    if (r.kind !== "offloaded") throw new Error("expected an offload");
    expect(r.file.path.startsWith(`${defaultOutputDir()}/`)).toBe(true);
    expect(statSync(defaultOutputDir()).mode & 0o777).toBe(0o700);
    expect(statSync(r.file.path).mode & 0o777).toBe(0o600);
  });

  it("is tightened to 0700 when it exists with a looser mode", async () => {
    mkdirSync(defaultOutputDir());
    chmodSync(defaultOutputDir(), 0o777);
    await ensureOutputDir(nodeOffloadFs, defaultOutputDir());
    expect(statSync(defaultOutputDir()).mode & 0o777).toBe(0o700);
  });

  it("is refused when it is a symlink or not a directory", async () => {
    const elsewhere = join(base.dir, "elsewhere");
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, defaultOutputDir());
    expect(await refusal(ensureOutputDir(nodeOffloadFs, defaultOutputDir()))).toBe(
      "OUTPUT_DIR_SYMLINK",
    );
    expect(lstatSync(defaultOutputDir()).isSymbolicLink()).toBe(true);
    base.cleanup();
    mkdirSync(base.dir);
    writeFileSync(defaultOutputDir(), "");
    expect(await refusal(ensureOutputDir(nodeOffloadFs, defaultOutputDir()))).toBe(
      "OUTPUT_DIR_UNUSABLE",
    );
  });

  it.skipIf(uid !== 0)("is refused when another user made it first", async () => {
    mkdirSync(defaultOutputDir());
    chmodSync(defaultOutputDir(), 0o777);
    chownSync(defaultOutputDir(), 12345, 12345);
    const err = await ensureOutputDir(nodeOffloadFs, defaultOutputDir()).catch((e) => e);
    expect(err).toMatchObject({ code: "OUTPUT_DIR_NOT_OWNED" });
    expect(err.message).toContain("uid 12345");
    // Nothing was changed on it.
    expect(statSync(defaultOutputDir()).mode & 0o777).toBe(0o777);
  });

  it.skipIf(uid !== 0)(
    "named like the default under another temp dir (as install writes it), it keeps the default's rules",
    async () => {
      const other = join(base.dir, "other-tmp");
      mkdirSync(other);
      const named = join(other, `atlatl-${uid}`);
      mkdirSync(named);
      chmodSync(named, 0o755);
      await ensureOutputDir(nodeOffloadFs, named);
      expect(statSync(named).mode & 0o777).toBe(0o700);
      chownSync(named, 12345, 12345);
      const err = await ensureOutputDir(nodeOffloadFs, named).catch((e) => e);
      expect(err).toMatchObject({ code: "OUTPUT_DIR_NOT_OWNED" });
    },
  );

  it("a configured directory keeps its own mode (the user's choice)", async () => {
    const mine = join(base.dir, "shared");
    mkdirSync(mine);
    chmodSync(mine, 0o755);
    await ensureOutputDir(nodeOffloadFs, mine);
    expect(statSync(mine).mode & 0o777).toBe(0o755);
  });
});

describe("the directory made as a process starts (atlatl serve, atlatl-proxy)", () => {
  it("is made when offloading is on, and not when it is off", async () => {
    const reported: string[] = [];
    const off = join(base.dir, "off");
    await ensureOutputDirAtStart({ enabled: false, outputDir: off }, (m) => reported.push(m));
    expect(() => lstatSync(off)).toThrow(/ENOENT/);
    await ensureOutputDirAtStart({ enabled: true, outputDir: defaultOutputDir() }, (m) =>
      reported.push(m),
    );
    expect(statSync(defaultOutputDir()).mode & 0o777).toBe(0o700);
    expect(reported).toEqual([]);
  });

  it("reports a refusal with the engine's message instead of throwing", async () => {
    writeFileSync(defaultOutputDir(), "");
    const reported: string[] = [];
    await ensureOutputDirAtStart({ enabled: true, outputDir: defaultOutputDir() }, (m) =>
      reported.push(m),
    );
    const err = await ensureOutputDir(nodeOffloadFs, defaultOutputDir()).catch((e) => e);
    expect(reported).toEqual([err.message]);
  });
});
