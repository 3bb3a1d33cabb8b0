/**
 * The `process` fallback (bubblewrap missing or unable to create namespaces):
 * a child process with the task directory as cwd and HOME, a scrubbed
 * environment, the time and output limits, and RLIMIT_FSIZE (via `prlimit`)
 * so no single file it writes exceeds the quota. It does NOT bound the total
 * written, nor stop reads outside the directory or network access; it refuses
 * to run as root (createSandbox), since nothing here would drop privileges.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { collect } from "./child.js";
import {
  DISK_QUOTA_BYTES,
  type RunOptions,
  type RunResult,
  SANDBOX_PATH,
  type Workspace,
} from "./types.js";

class ProcessWorkspace implements Workspace {
  constructor(private readonly dir: string) {}

  private start(argv: readonly string[], pipes: number): ChildProcess {
    return spawn("prlimit", [`--fsize=${DISK_QUOTA_BYTES}`, "--", ...argv], {
      cwd: this.dir,
      env: { PATH: SANDBOX_PATH, HOME: this.dir, LANG: "C.UTF-8" },
      // Own process group, so a timeout kills the whole pipeline.
      detached: true,
      stdio: Array<"pipe">(3 + pipes).fill("pipe"),
    });
  }

  run(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    return collect(this.start(argv, 0), options);
  }

  async spawn(argv: readonly string[]): Promise<ChildProcess> {
    return this.start(argv, 1);
  }
}

export function openProcessWorkspace(dir: string): Workspace {
  return new ProcessWorkspace(dir);
}
