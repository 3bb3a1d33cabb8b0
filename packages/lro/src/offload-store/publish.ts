/**
 * The offloader's side of its store: each completed JSONL file is
 * published before it takes its name (so the descriptor, returned after the
 * rename, only ever names a file every instance can read), and removed from
 * the store when the offload is abandoned afterwards.
 */
import { createReadStream } from "node:fs";
import { basename } from "node:path";
import { offloadFileNaming } from "../materialize/file-name.js";
import { type PublishOffload, WriteFailedError } from "../materialize/write-jsonl.js";
import type { OffloadStoreBinding } from "./offload-store.js";

/** Chunks a file not in memory is read back in, for the store to take as they come. */
const READ_CHUNK_BYTES = 1 << 20;

/** The materializer's publish hook for `binding`'s principal; files live `ttlSeconds` from their ULID time. */
export function storePublisher(
  binding: OffloadStoreBinding,
  config: { ttlSeconds: number; filePrefix?: string | undefined },
): PublishOffload {
  const naming = offloadFileNaming(config.filePrefix);
  return async ({ name, tempPath, size, chunks }) => {
    const parsed = naming.parse(name);
    if (!parsed) throw new TypeError(`${name} is not an offload file name`);
    await binding.store.publish({
      principal: binding.principal,
      name,
      size,
      createdAt: parsed.createdAt,
      expiresAt: parsed.createdAt + config.ttlSeconds * 1000,
      chunks: chunks ?? readBack(tempPath),
    });
  };
}

/** The file at `path` read back in chunks, opened only when a store reads it (the local store never does). */
async function* readBack(path: string): AsyncIterable<Uint8Array> {
  yield* createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
}

/** Remove the published copy of the file at `path` (an abandoned offload); never rejects. */
export async function unpublish(
  binding: OffloadStoreBinding | undefined,
  path: string,
): Promise<void> {
  if (!binding) return;
  await binding.store
    .remove({ principal: binding.principal, name: basename(path) })
    .catch(() => {});
}

/**
 * After a failed write: remove what the store may hold of it (published, then
 * the rename failed), so a file nobody was told about neither lingers to its
 * TTL nor counts against the quota; never rejects.
 */
export async function unpublishFailed(
  binding: OffloadStoreBinding | undefined,
  err: unknown,
): Promise<void> {
  if (err instanceof WriteFailedError) await unpublish(binding, err.path);
}
