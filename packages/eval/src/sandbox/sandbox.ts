/**
 * Where `bash` and `python_exec` run. Two modes, chosen once per run:
 *
 * - `bwrap` (bubblewrap): a fresh mount/pid/net/ipc/uts namespace; only /usr
 *   (read-only, with the /bin and /lib symlinks), a private /proc, /dev and
 *   /tmp, and the task directory (read-write, at its own path) are visible. No
 *   network (--unshare-net: only a down loopback), no environment but PATH,
 *   HOME and LANG, killed with its parent, wall-clock limit per call.
 * - `process` (fallback when bwrap is missing or cannot create namespaces): a
 *   child process with the task directory as cwd and HOME, a scrubbed
 *   environment and the same time and output limits. It does NOT stop reads
 *   outside the directory nor network access: use it only with trusted models.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";

export type SandboxMode = "bwrap" | "process";

export interface RunResult {
  stdout: string;
  stderr: string;
  /** Exit code, or null when killed. */
  code: number | null;
  timedOut: boolean;
  /** Output beyond the cap was dropped. */
  clipped: boolean;
}

export interface Sandbox {
  readonly mode: SandboxMode;
  /** What this mode guarantees, for transcripts and docs. */
  readonly guarantees: string;
  /** Start `argv` in the sandbox with `dir` as its only writable, visible data. */
  spawn(argv: readonly string[], dir: string): ChildProcess;
  /** Run to completion with a time limit. */
  run(argv: readonly string[], dir: string, options?: RunOptions): Promise<RunResult>;
}

export interface RunOptions {
  timeoutMs?: number;
  /** Bytes kept of stdout and of stderr each. */
  maxOutputBytes?: number;
  stdin?: string;
}

export const DEFAULT_TIMEOUT_MS = 20_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024;
const PATH = "/usr/local/bin:/usr/bin:/bin";

const GUARANTEES: Record<SandboxMode, string> = {
  bwrap:
    "bubblewrap: only /usr (read-only) and the task directory are visible; no network; private /proc, /dev, /tmp; scrubbed environment; time limit",
  process:
    "process (weak fallback): cwd and HOME are the task directory, scrubbed environment, time limit; reads outside the directory and network are NOT blocked",
};

function bwrapArgs(argv: readonly string[], dir: string): string[] {
  return [
    "--unshare-all",
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
    "--tmpfs",
    "/tmp",
    "--bind",
    dir,
    dir,
    "--chdir",
    dir,
    "--clearenv",
    "--setenv",
    "PATH",
    PATH,
    "--setenv",
    "HOME",
    dir,
    "--setenv",
    "LANG",
    "C.UTF-8",
    "--",
    ...argv,
  ];
}

/** True when `bwrap` exists and can create its namespaces here. */
export function bwrapWorks(): boolean {
  const r = spawnSync("bwrap", bwrapArgs(["/usr/bin/true"], "/tmp"), { timeout: 10_000 });
  return r.status === 0;
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

class SpawnSandbox implements Sandbox {
  readonly guarantees: string;
  constructor(readonly mode: SandboxMode) {
    this.guarantees = GUARANTEES[mode];
  }

  spawn(argv: readonly string[], dir: string): ChildProcess {
    const [cmd, args] =
      this.mode === "bwrap" ? ["bwrap", bwrapArgs(argv, dir)] : [argv[0] as string, argv.slice(1)];
    return spawn(cmd, args, {
      cwd: dir,
      env: { PATH, HOME: dir, LANG: "C.UTF-8" },
      // Own process group, so a timeout kills the whole pipeline.
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
  }

  run(argv: readonly string[], dir: string, options: RunOptions = {}): Promise<RunResult> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const cap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    return new Promise((resolve) => {
      const child = this.spawn(argv, dir);
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let outBytes = 0;
      let errBytes = 0;
      let clipped = false;
      let timedOut = false;
      child.stdout?.on("data", (b: Buffer) => {
        if (outBytes < cap) out.push(b.subarray(0, cap - outBytes));
        else clipped = true;
        outBytes += b.length;
      });
      child.stderr?.on("data", (b: Buffer) => {
        if (errBytes < cap) err.push(b.subarray(0, cap - errBytes));
        else clipped = true;
        errBytes += b.length;
      });
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(child);
      }, timeoutMs);
      child.on("error", (e) => {
        err.push(Buffer.from(String(e.message)));
      });
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({
          stdout: Buffer.concat(out).toString("utf8"),
          stderr: Buffer.concat(err).toString("utf8"),
          code: timedOut ? null : code,
          timedOut,
          clipped: clipped || outBytes > cap || errBytes > cap,
        });
      });
      child.stdin?.on("error", () => {});
      child.stdin?.end(options.stdin ?? "");
    });
  }
}

/** `auto` picks bwrap when it works, else the process fallback. */
export function createSandbox(mode: SandboxMode | "auto" = "auto"): Sandbox {
  if (mode === "auto") return new SpawnSandbox(bwrapWorks() ? "bwrap" : "process");
  if (mode === "bwrap" && !bwrapWorks()) {
    throw new Error(
      "--sandbox bwrap: bubblewrap is missing or cannot create namespaces here (Debian: apt-get install bubblewrap)",
    );
  }
  return new SpawnSandbox(mode);
}

export { killGroup };
