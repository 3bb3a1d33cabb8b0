/** Driving a sandboxed child: bounded output, a time limit that kills its whole group. */
import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  type RunOptions,
  type RunResult,
} from "./types.js";

export function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

export interface Capped {
  bytes: Buffer;
  /** More than `cap` bytes arrived; the rest was dropped. */
  overflow: boolean;
}

/** Everything `stream` yields up to `cap` bytes, resolved when it ends. */
export function readCapped(stream: Readable, cap: number): Promise<Capped> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let total = 0;
    stream.on("data", (b: Buffer) => {
      if (total < cap) parts.push(b.subarray(0, cap - total));
      total += b.length;
    });
    stream.on("error", () => {});
    stream.on("close", () => resolve({ bytes: Buffer.concat(parts), overflow: total > cap }));
  });
}

/** Feed stdin, collect stdout and stderr (capped), kill the group at the time limit. */
export async function collect(child: ChildProcess, options: RunOptions): Promise<RunResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const cap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, timeoutMs);
  const spawnError: string[] = [];
  const exited = new Promise<number | null>((resolve) => {
    child.on("close", (code) => resolve(code));
    // A child that could not be started may never emit "close".
    child.on("error", (e) => {
      spawnError.push(e.message);
      resolve(null);
    });
  });
  child.stdin?.on("error", () => {});
  child.stdin?.end(options.stdin ?? "");
  const [out, err, code] = await Promise.all([
    readCapped(child.stdout as Readable, cap),
    readCapped(child.stderr as Readable, cap),
    exited,
  ]);
  clearTimeout(timer);
  return {
    stdout: out.bytes.toString("utf8"),
    stderr: err.bytes.toString("utf8") + spawnError.join("\n"),
    code: timedOut ? null : code,
    timedOut,
    clipped: out.overflow || err.overflow,
  };
}
