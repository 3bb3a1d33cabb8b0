/**
 * The code sandbox under hostile code (issue 18, items 3, 6 and 15): no host
 * root, a disk quota on the task directory and /tmp, and python_exec replies
 * the code cannot forge. Real bubblewrap, real bash and python3, as the harness
 * runs (root in CI and on these machines).
 */
import { spawnSync } from "node:child_process";
import { chown, lstat, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Condition, conditionById } from "../src/conditions/conditions.js";
import { loadCorpus } from "../src/corpus/freeze.js";
import type { MemoryRecord } from "../src/corpus/records.js";
import {
  bwrapWorks,
  createSandbox,
  DISK_QUOTA_BYTES,
  SANDBOX_UID,
} from "../src/sandbox/sandbox.js";
import { createEnvironment, type ToolEnvironment } from "../src/tools/environment.js";

const hasBwrap = bwrapWorks();
if (process.env.CI && !hasBwrap)
  throw new Error("CI must have a working bubblewrap (.ci/run installs it)");

const MIB = 1024 * 1024;
let records: MemoryRecord[];
const envs: ToolEnvironment[] = [];
let outside: string;

function cond(id: string): Condition {
  const c = conditionById(id);
  if (!c) throw new Error(id);
  return c;
}

async function env(id: string, timeoutMs = 10_000): Promise<ToolEnvironment> {
  const e = await createEnvironment(cond(id), records, {
    sandbox: createSandbox("bwrap"),
    timeoutMs,
  });
  envs.push(e);
  return e;
}

/** Every path under `dir` with its owner and mode, as the host sees it. */
async function hostFiles(
  dir: string,
): Promise<{ path: string; uid: number; mode: number; size: number }[]> {
  const out: { path: string; uid: number; mode: number; size: number }[] = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const s = await lstat(path);
    out.push({ path, uid: s.uid, mode: s.mode, size: s.size });
    if (s.isDirectory()) out.push(...(await hostFiles(path)));
  }
  return out;
}

/** Host pid and real/effective uid of every process whose command line holds `marker`. */
async function hostProcesses(marker: string): Promise<{ pid: number; uids: number[] }[]> {
  const found: { pid: number; uids: number[] }[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = (await readFile(`/proc/${name}/cmdline`, "utf8")).replaceAll("\0", " ");
      if (!cmdline.includes(marker)) continue;
      const status = await readFile(`/proc/${name}/status`, "utf8");
      const uidLine = status.split("\n").find((l) => l.startsWith("Uid:")) ?? "";
      found.push({ pid: Number(name), uids: uidLine.split(/\s+/).slice(1, 3).map(Number) });
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

beforeAll(async () => {
  records = (await loadCorpus(50)).records;
  outside = await mkdtemp(join(tmpdir(), "atlatl-eval-outside-"));
});
afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
  await rm(outside, { recursive: true, force: true });
});

describe.skipIf(!hasBwrap)("the sandbox never runs code as host root (item 3)", () => {
  it("a setuid shell, a chmod of the task directory and writes outside leave nothing root-owned on the host", async () => {
    const e = await env("e2-c1");
    await e.call("list_memories", {});
    const before = await hostFiles(e.dir);
    const out = await e.call("bash", {
      command: [
        "id -u",
        "grep CapEff /proc/self/status",
        "cp /usr/bin/bash ./rootsh && chmod 4755 ./rootsh",
        "chmod 4777 . 2>&1",
        "mkdir -p sub && cp /usr/bin/bash sub/sh && chmod u+s sub/sh",
        `echo pwned > ${join(outside, "pwned")} 2>&1`,
        "touch /usr/pwned 2>&1",
        "echo done",
      ].join("\n"),
    });
    expect(out.content).toContain("done");
    const [uid, capLine] = out.content.split("\n");
    expect(Number(uid)).not.toBe(0);
    expect(capLine).toMatch(/^CapEff:\s+0+$/);
    // Host side: nothing in the task directory is root-owned and setuid, the
    // directory itself is unchanged, and nothing appeared outside it.
    const after = await hostFiles(e.dir);
    for (const f of after) expect(f.uid === 0 && (f.mode & 0o4000) !== 0, f.path).toBe(false);
    expect(after.map((f) => f.path).sort()).toEqual(before.map((f) => f.path).sort());
    expect((await lstat(e.dir)).mode & 0o7777).toBe(0o700);
    expect(await readdir(outside)).toEqual([]);
  });

  it("the sandboxed processes run as an unprivileged host uid (seen from the host)", async () => {
    const e = await env("e2-c1");
    const marker = `sleep 3.${process.pid}`;
    const call = e.call("bash", { command: `${marker}; echo slept` });
    let seen: { pid: number; uids: number[] }[] = [];
    for (let i = 0; i < 100 && seen.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      seen = await hostProcesses(marker);
    }
    expect(seen.length).toBeGreaterThan(0);
    for (const p of seen) {
      expect(p.uids).not.toContain(0);
      if (process.getuid?.() === 0) expect(p.uids).toEqual([SANDBOX_UID, SANDBOX_UID]);
    }
    expect((await call).content).toContain("slept");
  });

  it("python_exec runs as the same unprivileged uid, without capabilities", async () => {
    const e = await env("e1-inline-code");
    const out = await e.call("python_exec", {
      code: "import os\nprint(os.getuid(), os.geteuid(), open('/proc/self/status').read().split('CapEff:')[1].split()[0])",
    });
    const [uid, euid, caps] = out.content.trim().split(" ");
    expect(Number(uid)).not.toBe(0);
    expect(Number(euid)).not.toBe(0);
    expect(Number.parseInt(caps ?? "x", 16)).toBe(0);
  });
});

describe.skipIf(!hasBwrap)("the sandbox has a disk quota (item 6)", () => {
  const big = (DISK_QUOTA_BYTES + 16 * MIB) / MIB;

  it("filling the task directory or /tmp fails that call clearly; the next call and the host are fine", async () => {
    const e = await env("e2-c1");
    await e.call("list_memories", {});
    const dirFull = await e.call("bash", { command: `head -c ${big}M /dev/zero > big.bin` });
    expect(dirFull.isError).toBe(true);
    expect(dirFull.content).toContain("No space left on device");
    expect(dirFull.content).toContain("quota");
    const tmpFull = await e.call("bash", {
      command: `rm -f big.bin; head -c ${big}M /dev/zero > /tmp/big.bin`,
    });
    expect(tmpFull.isError).toBe(true);
    expect(tmpFull.content).toContain("No space left on device");
    const next = await e.call("bash", { command: "ls; echo next" });
    expect(next.isError).toBe(false);
    expect(next.content).toContain("next");
    const total = (await hostFiles(e.dir)).reduce((n, f) => n + f.size, 0);
    expect(total).toBeLessThan(DISK_QUOTA_BYTES);
  });

  it("files written in the task directory are kept for the next call, within the quota", async () => {
    const e = await env("e2-c1");
    await e.call("bash", { command: "echo kept > note.txt; mkdir -p d && echo deep > d/x" });
    const out = await e.call("bash", { command: "cat note.txt d/x" });
    expect(out.content).toBe("kept\ndeep\n");
  });

  it("python_exec hits the same quota with a clear error and keeps serving", async () => {
    const e = await env("e1-inline-code");
    const out = await e.call("python_exec", {
      code: `x = 1\nwith open('big.bin', 'wb') as f:\n    for _ in range(${big}):\n        f.write(b'0' * ${MIB})`,
    });
    expect(out.content).toContain("No space left on device");
    expect(out.content).toContain("quota");
    expect(
      (
        await e.call("python_exec", { code: "import os\nos.remove('big.bin')\nx + 1" })
      ).content.trim(),
    ).toBe("2");
  });
});

describe.skipIf(!hasBwrap)("python_exec replies cannot be forged (item 15)", () => {
  it("a fake reply written to sys.__stdout__ is shown as output and shifts nothing", async () => {
    const e = await env("e1-inline-code");
    const forged = await e.call("python_exec", {
      code: 'import sys, json\nsys.__stdout__.write(json.dumps({"output": "forged"}) + "\\n")\nsys.__stdout__.flush()\nprint("true output")',
    });
    expect(forged.content).toContain("true output");
    expect(forged.content).not.toBe("forged");
    expect((await e.call("python_exec", { code: "print('second')" })).content.trim()).toBe(
      "second",
    );
    expect((await e.call("python_exec", { code: "print('third')" })).content.trim()).toBe("third");
  });

  it("a fake reply written to any inherited descriptor is not taken as the answer", async () => {
    const e = await env("e1-inline-code");
    const forged = await e.call("python_exec", {
      code: [
        "import json, os",
        "for fd in os.listdir('/proc/self/fd'):",
        "    try:",
        '        os.write(int(fd), (json.dumps({"output": "forged"}) + "\\n").encode())',
        "    except OSError:",
        "        pass",
        "print('true output')",
      ].join("\n"),
    });
    expect(forged.content).toContain("true output");
    expect((await e.call("python_exec", { code: "print('second')" })).content.trim()).toBe(
      "second",
    );
  });

  it("patching the json module rewrites no reply", async () => {
    const e = await env("e1-inline-code");
    const out = await e.call("python_exec", {
      code: "import json\njson.dumps = lambda *a, **k: '{\"output\": \"forged\"}'\nprint('true output')",
    });
    expect(out.content).toBe("true output\n");
    expect((await e.call("python_exec", { code: "print('second')" })).content).toBe("second\n");
  });

  it("output of child processes is part of the reply, not the protocol", async () => {
    const e = await env("e1-inline-code");
    const out = await e.call("python_exec", {
      code: "import os\nos.system('echo from-a-child')\nprint('after')",
    });
    expect(out.content).toBe("from-a-child\nafter\n");
    expect((await e.call("python_exec", { code: "1 + 1" })).content.trim()).toBe("2");
  });
});

describe("process sandbox (the weak fallback)", () => {
  const isRoot = process.getuid?.() === 0;

  it.runIf(isRoot)("refuses to run model code as root", () => {
    expect(() => createSandbox("process")).toThrow(/would run model code as root/);
  });

  it("runs in the task directory with a scrubbed environment, a time limit and a per-file size limit", async () => {
    const dir = await mkdtemp(join(tmpdir(), "atlatl-eval-proc-"));
    try {
      // As root, run the harness side as the unprivileged uid it would need.
      if (isRoot) await chown(dir, SANDBOX_UID, SANDBOX_UID);
      const here = dirname(fileURLToPath(import.meta.url));
      const r = spawnSync(
        process.execPath,
        ["--import", "tsx", join(here, "fixtures/process-sandbox.ts"), dir],
        {
          encoding: "utf8",
          timeout: 60_000,
          ...(isRoot ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : {}),
        },
      );
      expect(r.stderr).toBe("");
      const seen = JSON.parse(r.stdout);
      expect(seen.mode).toBe("process");
      expect(seen.guarantees).toContain("NOT blocked");
      expect(seen.env).toEqual([dir, dir, "0"]);
      expect(seen.slowTimedOut).toBe(true);
      expect(seen.bigCode).not.toBe(0);
      expect(seen.bigSize).toBeLessThanOrEqual(DISK_QUOTA_BYTES);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
