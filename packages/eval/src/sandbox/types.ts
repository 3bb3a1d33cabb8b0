/** The sandbox seam and its limits (one place for every bound the sandbox applies). */
import type { ChildProcess } from "node:child_process";

export type SandboxMode = "bwrap" | "process";

export interface RunResult {
  stdout: string;
  stderr: string;
  /** Exit code, or null when killed. */
  code: number | null;
  timedOut: boolean;
  /** Output beyond the cap was dropped. */
  clipped: boolean;
  /** What the sandbox itself has to say about the call (quota reached, files not kept). */
  notice?: string;
}

export interface RunOptions {
  timeoutMs?: number;
  /** Bytes kept of stdout and of stderr each. */
  maxOutputBytes?: number;
  stdin?: string;
}

/** One sample's sandboxed working directory. */
export interface Workspace {
  /** Run to completion; what it writes in the directory is there for the next `run`. */
  run(argv: readonly string[], options?: RunOptions): Promise<RunResult>;
  /**
   * Start a long-lived process (python_exec's interpreter) in the directory.
   * Its fd 3 is a pipe to the harness (`child.stdio[3]`), apart from stdout.
   */
  spawn(argv: readonly string[]): Promise<ChildProcess>;
}

export interface Sandbox {
  readonly mode: SandboxMode;
  /** What this mode guarantees, for transcripts and docs. */
  readonly guarantees: string;
  /** The sandbox's view of `dir`, a directory only the harness writes on the host. */
  open(dir: string): Workspace;
}

export const DEFAULT_TIMEOUT_MS = 20_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024;
/**
 * Disk the sandboxed code may fill: the task directory and /tmp each (bwrap:
 * size-limited tmpfs mounts; process fallback: the largest file it may write).
 */
export const DISK_QUOTA_BYTES = 64 * 1024 * 1024;
/**
 * Host uid and gid the sandbox runs as when the harness is root ("nobody" on
 * Debian, Ubuntu and Fedora): code must never run as host root.
 */
export const SANDBOX_UID = 65534;
export const SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin";
export const QUOTA_NOTICE = `[sandbox: disk quota reached; the task directory and /tmp hold at most ${DISK_QUOTA_BYTES / 1024 / 1024} MiB each; delete files to go on]`;
