/**
 * Where `bash` and `python_exec` run. Two modes, chosen once per run:
 *
 * - `bwrap` (bubblewrap, ./bwrap.ts): fresh user, mount, pid, net, ipc and uts
 *   namespaces; only /usr (read-only, with the /bin and /lib symlinks), a
 *   private /proc and /dev, and size-limited tmpfs mounts at /tmp and at the
 *   task directory's path (holding a copy of the harness's files) are visible.
 *   No network, no capabilities, never host root, no environment but PATH,
 *   HOME and LANG, killed with its parent, wall-clock limit per call.
 * - `process` (./fallback.ts, when bwrap is missing or cannot create
 *   namespaces): a child process in the task directory with a scrubbed
 *   environment, the same time and output limits and a per-file size limit. It
 *   does NOT stop reads outside the directory nor network access: use it only
 *   with trusted models. It refuses to run as root.
 */
import { bwrapWorks, openBwrapWorkspace } from "./bwrap.js";
import { killGroup } from "./child.js";
import { openProcessWorkspace } from "./fallback.js";
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  DISK_QUOTA_BYTES,
  QUOTA_NOTICE,
  type RunOptions,
  type RunResult,
  SANDBOX_UID,
  type Sandbox,
  type SandboxMode,
  type Workspace,
} from "./types.js";

const MIB = DISK_QUOTA_BYTES / 1024 / 1024;
const GUARANTEES: Record<SandboxMode, string> = {
  bwrap: `bubblewrap: only /usr (read-only) and a copy of the task directory are visible; no network; no capabilities, never host root; private /proc, /dev, /tmp; task directory and /tmp ${MIB} MiB each; scrubbed environment; time limit`,
  process: `process (weak fallback): cwd and HOME are the task directory, scrubbed environment, time limit, files up to ${MIB} MiB each; reads outside the directory and network are NOT blocked, total disk use is NOT bounded`,
};

const ROOT_REFUSED =
  "the process sandbox would run model code as root: install bubblewrap (Debian: apt-get install bubblewrap) or run atlatl-eval as an unprivileged user";

/** `auto` picks bwrap when it works, else the process fallback (never as root). */
export function createSandbox(mode: SandboxMode | "auto" = "auto"): Sandbox {
  const works = mode === "process" ? false : bwrapWorks();
  if (mode === "bwrap" && !works) {
    throw new Error(
      "--sandbox bwrap: bubblewrap is missing or cannot create namespaces here (Debian: apt-get install bubblewrap)",
    );
  }
  const chosen: SandboxMode = works ? "bwrap" : "process";
  if (chosen === "process" && process.getuid?.() === 0) {
    throw new Error(`--sandbox ${mode}: ${ROOT_REFUSED}`);
  }
  return {
    mode: chosen,
    guarantees: GUARANTEES[chosen],
    open: chosen === "bwrap" ? openBwrapWorkspace : openProcessWorkspace,
  };
}

export {
  bwrapWorks,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  DISK_QUOTA_BYTES,
  killGroup,
  QUOTA_NOTICE,
  type RunOptions,
  type RunResult,
  SANDBOX_UID,
  type Sandbox,
  type SandboxMode,
  type Workspace,
};
