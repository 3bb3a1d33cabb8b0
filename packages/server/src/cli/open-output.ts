import { open } from "node:fs/promises";
import { dirname } from "node:path";

const REASONS: Record<string, (path: string) => string> = {
  ENOENT: (path) => `the directory ${dirname(path)} does not exist (create it first)`,
  ENOTDIR: (path) => `${dirname(path)} is not a directory`,
  EISDIR: () => "it is a directory; give a file name",
  EACCES: () => "permission denied",
  EPERM: () => "permission denied",
  EROFS: () => "the file system is read-only",
};

/**
 * Open `path` for writing (0600, truncated) before any work starts, so a bad
 * `--out` fails at once with a sentence a person can act on, not a bare errno.
 */
export async function openOutputFile(
  path: string,
): Promise<NodeJS.WritableStream & { close(): Promise<void> }> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "w", 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    const reason = REASONS[code]?.(path) ?? (err as Error).message;
    throw new Error(`cannot write ${path}: ${reason}.`);
  }
  const stream = handle.createWriteStream();
  return Object.assign(stream, {
    close: () =>
      new Promise<void>((resolve, reject) => {
        stream.end((err?: Error | null) => (err ? reject(err) : resolve()));
      }),
  });
}
