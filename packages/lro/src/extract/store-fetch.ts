/**
 * Reading anywhere: an offload file this instance does not have on its disk is
 * fetched from the shared offload store (the caller's principal only) and
 * written into the caller's directory by the materializer's own private,
 * atomic path. Then the ordinary confined open, limits, fast paths and
 * parsed-file cache apply to it as to any local file; the copy is a cache the
 * directory sweeper drops after the file's time to live.
 */
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { offloadFileNaming } from "../materialize/file-name.js";
import { nodeOffloadFs } from "../materialize/offload-fs.js";
import { ensureOutputDir, writePrivateChunks } from "../materialize/write-jsonl.js";
import type { OffloadStoreBinding } from "../offload-store/offload-store.js";

/** Fetches in flight, by directory and name: concurrent readers of one missing file share one. */
const inFlight = new Map<string, Promise<boolean>>();

/**
 * Copy the principal's file `name` from the store into `outputDir`. Resolves
 * true when the file is now there, false when the store has no such file.
 * Rejects with the store's `OFFLOAD_STORE_FAILED`, or `WRITE_FAILED`.
 */
export function fetchIntoDir(
  binding: OffloadStoreBinding,
  outputDir: string,
  name: string,
  filePrefix?: string,
): Promise<boolean> {
  const key = `${outputDir}\0${name}`;
  const pending = inFlight.get(key);
  if (pending) return pending;
  const run = fetchOnce(binding, outputDir, name, filePrefix).finally(() => inFlight.delete(key));
  inFlight.set(key, run);
  return run;
}

async function fetchOnce(
  binding: OffloadStoreBinding,
  outputDir: string,
  name: string,
  filePrefix: string | undefined,
): Promise<boolean> {
  const parsed = offloadFileNaming(filePrefix).parse(name);
  if (!parsed || parsed.temporary) return false;
  const found = await binding.store.fetch({ principal: binding.principal, name });
  if (!found) return false;
  await ensureOutputDir(nodeOffloadFs, outputDir);
  const dir = await realpath(outputDir);
  await writePrivateChunks({
    fs: nodeOffloadFs,
    path: join(dir, name),
    tempPath: join(
      dir,
      offloadFileNaming(filePrefix).tempName(parsed.operation, parsed.ulid, process.pid),
    ),
    chunks: found.chunks,
  });
  return true;
}
