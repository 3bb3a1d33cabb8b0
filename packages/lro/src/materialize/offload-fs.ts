/**
 * The few file-system primitives the writer and the sweeper use, behind an
 * interface so fault tests can inject a failing write without mocking Node.
 */
import {
  closeSync,
  constants,
  lstatSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import * as fsp from "node:fs/promises";

/** What `lstat` must tell us. */
export interface OffloadStat {
  isDirectory(): boolean;
  isFile(): boolean;
  isSymbolicLink(): boolean;
  size: number;
  mtimeMs: number;
  uid: number;
  /** Permission bits and file type (`st_mode`). */
  mode: number;
  /** Hard links to the file. */
  nlink: number;
  dev: number;
  ino: number;
}

/** An open file being written. */
export interface OffloadFileHandle {
  /**
   * Write `data` at `position`, or at the current position when omitted (a
   * string is written as UTF-8). Like `write(2)` it may write less than asked;
   * the writer checks and resumes.
   */
  write(data: string | Uint8Array, position?: number): Promise<{ bytesWritten: number }>;
  close(): Promise<void>;
}

/** File-system primitives of the offload path (defaults: `node:fs/promises`). */
export interface OffloadFs {
  lstat(path: string): Promise<OffloadStat>;
  /**
   * The output directory is checked before every write; a synchronous lstat is
   * a few microseconds, a thread-pool round trip a hundred or more.
   */
  lstatSync(path: string): OffloadStat;
  mkdir(path: string, options: { recursive: true; mode: number }): Promise<string | undefined>;
  chmod(path: string, mode: number): Promise<void>;
  /** Open for writing; `flags` is `"wx"` (create, fail if it exists). */
  open(path: string, flags: string, mode: number): Promise<OffloadFileHandle>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  /**
   * Open `path` without following a symlink (and without blocking on a FIFO),
   * and return the stat of what was opened with its first `maxBytes` bytes (none
   * unless it is a regular file): the sweeper judges a file by its content.
   */
  readHead(path: string, maxBytes: number): Promise<{ stat: OffloadStat; head: Uint8Array }>;
  /**
   * Synchronous path for small files (see `SYNC_WRITE_MAX_BYTES`): create
   * `path` exclusively with `mode`, write all of `data`, close. Returns the bytes
   * written. On a failure the partial file stays for the caller to unlink.
   * Five thread-pool round trips cost more than the whole write of a few
   * hundred KiB, so small results are written without them.
   */
  writeNewFileSync(path: string, data: Uint8Array, mode: number): number;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
}

/** The real file system. */
export const nodeOffloadFs: OffloadFs = {
  lstat: (path) => fsp.lstat(path),
  lstatSync: (path) => lstatSync(path),
  mkdir: (path, options) => fsp.mkdir(path, options),
  chmod: (path, mode) => fsp.chmod(path, mode),
  open: async (path, flags, mode) => {
    const handle = await fsp.open(path, flags, mode);
    return {
      // Strings go to Node as strings: its C++ encoder is faster than Buffer.from here.
      write: (data, position) =>
        typeof data === "string"
          ? handle.write(data, position ?? null)
          : handle.write(data, 0, data.length, position ?? null),
      close: () => handle.close(),
    };
  },
  rename: (from, to) => fsp.rename(from, to),
  unlink: (path) => fsp.unlink(path),
  readdir: (path) => fsp.readdir(path),
  async readHead(path, maxBytes) {
    const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
    const handle = await fsp.open(path, flags);
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) return { stat, head: new Uint8Array(0) };
      const buf = Buffer.alloc(Math.max(0, Math.min(maxBytes, stat.size)));
      const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
      return { stat, head: buf.subarray(0, bytesRead) };
    } finally {
      await handle.close();
    }
  },
  writeNewFileSync(path, data, mode) {
    const fd = openSync(path, "wx", mode);
    try {
      // write(2) may write less than asked (a filling disk): resume until done.
      let done = 0;
      while (done < data.length) done += writeSync(fd, data, done, data.length - done);
      return done;
    } finally {
      closeSync(fd);
    }
  },
  renameSync: (from, to) => renameSync(from, to),
  unlinkSync: (path) => unlinkSync(path),
};
