/**
 * The bubblewrap sandbox. Each call is a fresh bwrap with new user, mount, pid,
 * net, ipc and uts namespaces and no capabilities.
 *
 * Never host root: when the harness is root, bwrap itself is started as
 * SANDBOX_UID, so everything inside is that unprivileged host uid. Inside a
 * user namespace, root-run bwrap would map the sandbox's uid to host root
 * whatever `--uid` says, and a setuid file made inside would be setuid root on
 * the host.
 *
 * A disk quota that truly bounds the total: the task directory and /tmp are
 * tmpfs mounts of fixed size (`--size`), so a write past the quota fails with
 * ENOSPC however many files it spreads over (a per-file RLIMIT_FSIZE does not
 * bound the total, and watching the directory's size cannot stop a write in
 * time). The host task directory is never mounted: the harness's files are
 * copied in (`--file`, from descriptors the harness opened, so the sandbox uid
 * needs no access to the host directory), and what the code writes lives in
 * the tmpfs. To keep those files from one `bash` call to the next, the call
 * ends by streaming a tar of its directory to the harness (fd 4, at most a
 * bounded size) and the next call starts by unpacking it (fd 3). The tar is
 * only ever unpacked inside a sandbox, so a forged one can do no more than the
 * code could do itself. Nothing the code writes reaches the host's disk.
 */
import { type ChildProcess, type StdioOptions, spawn, spawnSync } from "node:child_process";
import { constants } from "node:fs";
import { type FileHandle, open, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { type Capped, collect, readCapped } from "./child.js";
import {
  DISK_QUOTA_BYTES,
  QUOTA_NOTICE,
  type RunOptions,
  type RunResult,
  SANDBOX_PATH,
  SANDBOX_UID,
  type Workspace,
} from "./types.js";

/** Root drops to SANDBOX_UID before bwrap starts; anyone else runs it as themselves. */
function hostCredentials(): { uid?: number; gid?: number } {
  return process.getuid?.() === 0 ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : {};
}

function bwrapArgs(dir: string, dirBytes: number): string[] {
  return [
    "--unshare-all",
    "--unshare-user",
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
    "--ro-bind",
    "/usr",
    "/usr",
    "--symlink",
    "usr/bin",
    "/bin",
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--size",
    String(DISK_QUOTA_BYTES),
    "--tmpfs",
    "/tmp",
    "--size",
    String(dirBytes),
    "--tmpfs",
    dir,
    "--chdir",
    dir,
    "--clearenv",
    "--setenv",
    "PATH",
    SANDBOX_PATH,
    "--setenv",
    "HOME",
    dir,
    "--setenv",
    "LANG",
    "C.UTF-8",
  ];
}

/** True when `bwrap` exists and can create its namespaces (and sized tmpfs) here. */
export function bwrapWorks(): boolean {
  const r = spawnSync(
    "bwrap",
    [...bwrapArgs("/tmp/atlatl-probe", 1 << 20), "--", "/usr/bin/true"],
    {
      cwd: "/",
      timeout: 10_000,
      ...hostCredentials(),
    },
  );
  return r.status === 0;
}

interface HostFiles {
  handles: FileHandle[];
  /** `--file FD DEST` for each. */
  args: string[];
  bytes: number;
}

/**
 * The harness's files in `dir` (regular files at its top level; the sandbox
 * never writes there), opened by the harness, to be copied in by bwrap from
 * the descriptors numbered `firstFd`, `firstFd + 1`, … in the child.
 */
async function openHostFiles(dir: string, firstFd: number): Promise<HostFiles> {
  const files: HostFiles = { handles: [], args: [], bytes: 0 };
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const handle = await open(join(dir, entry.name), constants.O_RDONLY | constants.O_NOFOLLOW);
    files.bytes += (await handle.stat()).size;
    files.args.push("--file", String(firstFd + files.handles.length), join(dir, entry.name));
    files.handles.push(handle);
  }
  return files;
}

/** Start bwrap with `pipes` extra pipes at fd 3, 4, … and the harness's files after them. */
async function start(dir: string, argv: readonly string[], pipes: number): Promise<ChildProcess> {
  const files = await openHostFiles(dir, 3 + pipes);
  try {
    const stdio: StdioOptions = [
      ...Array<"pipe">(3 + pipes).fill("pipe"),
      ...files.handles.map((h) => h.fd),
    ];
    const args = [...bwrapArgs(dir, DISK_QUOTA_BYTES + files.bytes), ...files.args, "--", ...argv];
    return spawn("bwrap", args, {
      cwd: "/",
      env: { PATH: SANDBOX_PATH },
      // Own process group, so a timeout kills the whole pipeline.
      detached: true,
      stdio,
      ...hostCredentials(),
    });
  } finally {
    // The child holds its own copies from here on.
    await Promise.all(files.handles.map((h) => h.close()));
  }
}

/**
 * Runs `"$@"` between restoring the previous call's files (fd 3) and sending
 * this call's back (fd 4: "ok" or "full", a newline, then a tar). The command
 * gets neither descriptor.
 */
const KEEP_FILES = `
dir=$1 restore=$2
shift 2
if [ "$restore" = 1 ] && ! tar -x -f - -C "$dir" <&3; then
  echo "[sandbox: the files of earlier calls could not be restored]" >&2
fi
exec 3<&-
"$@" 4>&-
rc=$?
if [ "$(stat -f -c %a "$dir" /tmp | sort -n | head -n 1)" -gt 0 ]; then echo ok; else echo full; fi >&4
tar -c -f - -C "$dir" . >&4
exit $rc
`;

const NOT_KEPT = "[sandbox: the files this call wrote were not kept";

class BwrapWorkspace implements Workspace {
  /** The task directory's files after the last call that finished, as a tar. */
  private files: Buffer | undefined;

  constructor(private readonly dir: string) {}

  async run(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    const restore = this.files !== undefined;
    const child = await start(
      this.dir,
      ["bash", "-c", KEEP_FILES, "atlatl-sandbox", this.dir, restore ? "1" : "0", ...argv],
      2,
    );
    const filesIn = child.stdio[3] as Writable;
    filesIn.on("error", () => {});
    filesIn.end(this.files ?? Buffer.alloc(0));
    // Tar headers can outweigh tiny files; twice the quota is a generous bound.
    const filesOut = readCapped(child.stdio[4] as Readable, 2 * (DISK_QUOTA_BYTES + (1 << 20)));
    const result = await collect(child, options);
    const out = await filesOut;
    if (result.timedOut) return { ...result, notice: `${NOT_KEPT} (stopped at its time limit)]` };
    const notice = this.keep(out);
    return notice ? { ...result, notice } : result;
  }

  /** Take the call's files for the next call; say why not, or that the quota was hit. */
  private keep(out: Capped): string | undefined {
    if (out.overflow) return `${NOT_KEPT} (too large)]`;
    const newline = out.bytes.indexOf(10);
    const status = newline < 0 ? "" : out.bytes.subarray(0, newline).toString("latin1");
    if (status !== "ok" && status !== "full") return `${NOT_KEPT} (the call did not finish)]`;
    this.files = out.bytes.subarray(newline + 1);
    return status === "full" ? QUOTA_NOTICE : undefined;
  }

  spawn(argv: readonly string[]): Promise<ChildProcess> {
    return start(this.dir, argv, 1);
  }
}

export function openBwrapWorkspace(dir: string): Workspace {
  return new BwrapWorkspace(dir);
}
