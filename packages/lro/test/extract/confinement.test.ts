/**
 * Security corpus for `file_path`: hostile paths are all refused (PATH_REFUSED)
 * through the real tool, expired and deleted files say to re-run the query,
 * and the server keeps answering valid calls afterwards.
 */
import { execFileSync } from "node:child_process";
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openOffloadFile } from "../../src/extract/confine.js";
import { offloadResourceUri } from "../../src/protocol/offload-resource-uri.js";
import { type ExtractHarness, parseJsonLines, startHarness } from "./harness.js";
import { makeMemories, projectMemory, writeOffloadFixture } from "./memory-fixtures.js";

let h: ExtractHarness;
let valid: string;
let elsewhere: string;
const corpus: [string, string][] = [];

function name(op = "recall") {
  return `atlatl-${op}-${ulid()}.jsonl`;
}

beforeAll(async () => {
  h = await startHarness({ thresholdTokens: 1e9 });
  const records = makeMemories(20).map((m) => projectMemory(m, "light"));
  valid = writeOffloadFixture(h.dir, records, { detail: "light" }).path;
  const dir = h.dir;
  const outside = mkdtempSync(join(tmpdir(), "atlatl-outside-"));
  elsewhere = outside;
  const outsideFile = writeOffloadFixture(outside, records, { detail: "light" }).path;

  const symToEtc = join(dir, name());
  symlinkSync("/etc/passwd", symToEtc);
  const symToOutside = join(dir, name());
  symlinkSync(outsideFile, symToOutside);
  const symRelative = join(dir, name());
  symlinkSync(`../${basename(outside)}/${basename(outsideFile)}`, symRelative);

  const swapped = writeOffloadFixture(dir, records, { detail: "light" }).path;
  unlinkSync(swapped);
  symlinkSync("/etc/hostname", swapped);

  const dirNamed = join(dir, name());
  mkdirSync(dirNamed);
  const fifo = join(dir, name());
  execFileSync("mkfifo", [fifo]);

  const otherPrefix = join(dir, `notatlatl-recall-${ulid()}.jsonl`);
  writeFileSync(otherPrefix, readFirst(valid), { mode: 0o600 });
  const wrongExt = join(dir, `atlatl-recall-${ulid()}.json`);
  writeFileSync(wrongExt, readFirst(valid), { mode: 0o600 });
  const temp = join(dir, `.atlatl-recall-${ulid()}.${process.pid}.tmp`);
  writeFileSync(temp, readFirst(valid), { mode: 0o600 });
  const notOffload = join(dir, name());
  writeFileSync(notOffload, "root:x:0:0:root:/root:/bin/bash\n", { mode: 0o600 });

  const hardSource = join(outside, "secret.txt");
  writeFileSync(hardSource, '{"type":"lro_header","detail":"light"}\n{"secret":true}\n', {
    mode: 0o600,
  });
  const hard = join(dir, name());
  linkSync(hardSource, hard);

  const linkDir = join(dir, "..", "link-to-out");
  symlinkSync(dir, linkDir);

  corpus.push(
    ["traversal out and back in", `${dir}/../${basename(dir)}/${basename(valid)}`],
    ["traversal to /etc/passwd", `${dir}/../../../../../../etc/passwd`],
    ["absolute /etc/passwd", "/etc/passwd"],
    ["absolute /etc/shadow", "/etc/shadow"],
    ["/proc/self/environ", "/proc/self/environ"],
    ["/proc/self/mem", "/proc/self/mem"],
    ["/proc/self/fd/0", "/proc/self/fd/0"],
    ["device /dev/zero", "/dev/zero"],
    ["device /dev/stdin", "/dev/stdin"],
    ["symlink named like an offload file, into /etc", symToEtc],
    ["symlink to an offload file elsewhere", symToOutside],
    ["relative symlink out of the directory", symRelative],
    ["file swapped for a symlink after it was written", swapped],
    ["a valid offload name in another directory", outsideFile],
    ["a directory named like an offload file", dirNamed],
    ["a FIFO named like an offload file", fifo],
    ["another file prefix in the directory", otherPrefix],
    ["wrong extension", wrongExt],
    ["our temporary file", temp],
    ["a file that is not an offload file", notOffload],
    ["a hard link to a file outside", hard],
    ["the directory through a symlinked parent", join(linkDir, basename(valid))],
    ["relative path with a directory", `out/${basename(valid)}`],
    ["relative ./name", `./${basename(valid)}`],
    ["relative ../", `../out/${basename(valid)}`],
    ["NUL byte after the name", `${valid}\0.txt`],
    ["NUL byte inside the directory", `${dir}\0/${basename(valid)}`],
    ["very long name", join(dir, `atlatl-recall-${"A".repeat(300)}.jsonl`)],
    ["very long path", `${dir}/${"x/".repeat(2500)}${basename(valid)}`],
    ["double slash", `${dir}//${basename(valid)}`],
    ["trailing /.", `${valid}/.`],
    ["the directory itself", dir],
    ["empty string", ""],
    ["file URL", `file://${valid}`],
    ["encoded traversal in a resource URI", "atlatl://offload/..%2F..%2Fetc%2Fpasswd"],
    ["backslash traversal", "..\\..\\etc\\passwd"],
    ["home directory secrets", "~/.ssh/id_rsa"],
    ["name with a newline", `${dir}/atlatl-recall-${ulid()}.jsonl\n`],
  );
});

function readFirst(path: string): string {
  return execFileSync("head", ["-c", "200", path], { encoding: "utf8" });
}

afterAll(async () => {
  await h?.close();
  if (elsewhere) rmSync(elsewhere, { recursive: true, force: true });
});

describe("hostile file paths", () => {
  it("has a corpus of at least 25 hostile paths", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(25);
  });

  it("refuses every one of them with PATH_REFUSED, and still answers a valid call", async () => {
    for (const [label, path] of corpus) {
      const r = await h.call({ file_path: path, recipe: 4 });
      expect(r.isError, `${label}: ${r.text}`).toBe(true);
      expect(r.text, label).toMatch(/^PATH_REFUSED: /);
      // Nothing of the target leaks into the message.
      expect(r.text, label).not.toMatch(/root:x:0|"secret"/);
    }
    const ok = await h.call({ file_path: valid, recipe: 4 });
    expect(ok.isError, ok.text).toBe(false);
    expect(parseJsonLines(ok.text)).toHaveLength(20);
  });

  it("refuses a file whose name changes identity between the check and the open", async () => {
    // The open descriptor is compared with what was inspected: a swap after the
    // lstat shows up as a different inode (or as ELOOP under O_NOFOLLOW).
    const records = makeMemories(3).map((m) => projectMemory(m, "light"));
    const f = writeOffloadFixture(h.dir, records, { detail: "light" });
    const opened = await openOffloadFile(f.path, { outputDir: h.dir, ttlSeconds: 3600 });
    const inode = opened.identity.ino;
    await opened.handle.close();
    unlinkSync(f.path);
    writeOffloadFixture(h.dir, records, { detail: "light" });
    symlinkSync("/etc/passwd", f.path);
    await expect(
      openOffloadFile(f.path, { outputDir: h.dir, ttlSeconds: 3600 }),
    ).rejects.toMatchObject({
      code: "PATH_REFUSED",
    });
    expect(inode).toBeGreaterThan(0);
  });

  it("accepts the descriptor's path, the bare file name and the resource URI", async () => {
    for (const path of [valid, basename(valid), offloadResourceUri(valid)]) {
      const r = await h.call({ file_path: path, recipe: 6 });
      expect(r.isError, r.text).toBe(false);
    }
  });

  it("a non-string file_path is rejected by the schema, not crashed on", async () => {
    const result = await h.client.callTool({
      name: "lro_extract",
      arguments: { file_path: 42, recipe: 1 },
    });
    expect(result.isError).toBe(true);
  });
});

describe("expired and deleted files", () => {
  it("an expired file: FILE_EXPIRED telling the agent to re-run the original query", async () => {
    const records = makeMemories(5).map((m) => projectMemory(m, "light"));
    const old = writeOffloadFixture(h.dir, records, {
      detail: "light",
      operation: "search",
      time: Date.now() - 2 * 3600 * 1000,
    });
    const r = await h.call({ file_path: old.path, recipe: 1 });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^FILE_EXPIRED: /);
    expect(r.text).toMatch(/re-run the original search query/);
  });

  it("a deleted file within its time to live: FILE_NOT_FOUND, telling the agent to re-run the query", async () => {
    const records = makeMemories(5).map((m) => projectMemory(m, "light"));
    const f = writeOffloadFixture(h.dir, records, { detail: "light" });
    unlinkSync(f.path);
    const r = await h.call({ file_path: f.path, recipe: 1 });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^FILE_NOT_FOUND: .*re-run the original recall query/s);
  });

  it("a well-formed name that never existed is not claimed to have expired or been deleted", async () => {
    for (const path of [name("recall"), join(h.dir, name("search"))]) {
      const r = await h.call({ file_path: path, recipe: 1 });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/^FILE_NOT_FOUND: /);
      expect(r.text).not.toMatch(/expired|time to live has passed|it was deleted/);
    }
  });

  it("a file that expires while the server runs is refused once its TTL passes", async () => {
    const records = makeMemories(5).map((m) => projectMemory(m, "light"));
    const f = writeOffloadFixture(h.dir, records, { detail: "light" });
    expect((await h.call({ file_path: f.path, recipe: 1 })).isError).toBe(false);
    h.advance(3601 * 1000);
    try {
      const r = await h.call({ file_path: f.path, recipe: 1 });
      expect(r.text).toMatch(/^FILE_EXPIRED: /);
    } finally {
      h.advance(-3601 * 1000);
    }
  });
});
