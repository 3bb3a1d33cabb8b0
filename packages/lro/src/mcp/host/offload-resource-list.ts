/**
 * What `resources/list` answers for offload files: the live files on this
 * instance's disk and the principal's live files in the offloader's store
 * (written by any instance; the local store lists none), once each by name. A
 * stateless client's list lands on any instance, so the store's files must be
 * listed wherever it lands, as they are read wherever it lands.
 */
import { join } from "node:path";
import type { OffloadConfig } from "../../config/offload-config.js";
import { offloadFileNaming } from "../../materialize/file-name.js";
import type { OffloadStoreBinding } from "../../offload-store/offload-store.js";
import type { Resource } from "../../protocol/mcp-types.js";
import { OFFLOAD_MIME_TYPE, offloadResourceUri } from "../../protocol/offload-resource-uri.js";
import { listOffloadFiles } from "../../sweep/sweep.js";

/** A live offload file, wherever it is kept. */
interface ListedFile {
  name: string;
  operation: string;
  createdAt: number;
  expiresAt: number;
  bytes: number;
}

/** Options of {@link listOffloadResources}. */
interface ListOffloadResourcesOptions {
  config: Pick<OffloadConfig, "outputDir" | "ttlSeconds"> &
    Partial<Pick<OffloadConfig, "filePrefix">>;
  /** The offloader's store binding: its files are listed too. */
  store: OffloadStoreBinding | undefined;
  /** Resource URI prefix. */
  prefix: string;
  now: () => number;
}

/** The store's live files of the binding's principal that are offload files of this prefix. */
async function storedFiles(
  binding: OffloadStoreBinding,
  now: number,
  filePrefix: string | undefined,
): Promise<ListedFile[]> {
  const naming = offloadFileNaming(filePrefix);
  const out: ListedFile[] = [];
  for (const f of await binding.store.list(binding.principal, now)) {
    const parsed = naming.parse(f.name);
    if (!parsed || parsed.temporary || parsed.attachment) continue;
    out.push({ ...f, operation: parsed.operation, bytes: f.size });
  }
  return out;
}

/** The live offload files as resources, oldest first (see the module comment). */
export async function listOffloadResources(
  options: ListOffloadResourcesOptions,
): Promise<Resource[]> {
  const { config, prefix } = options;
  const local: ListedFile[] = await listOffloadFiles(config.outputDir, {
    ttlSeconds: config.ttlSeconds,
    now: options.now,
    filePrefix: config.filePrefix,
  });
  const files = new Map(local.map((f) => [f.name, f]));
  if (options.store) {
    for (const f of await storedFiles(options.store, options.now(), config.filePrefix)) {
      if (!files.has(f.name)) files.set(f.name, f);
    }
  }
  return [...files.values()]
    .sort((a, b) => a.createdAt - b.createdAt || (a.name < b.name ? -1 : 1))
    .map((f) => ({
      uri: offloadResourceUri(join(config.outputDir, f.name), prefix),
      name: f.name,
      title: `Offloaded ${f.operation} result`,
      mimeType: OFFLOAD_MIME_TYPE,
      size: f.bytes,
      description:
        `Offloaded ${f.operation} result, created ${new Date(f.createdAt).toISOString()}, ` +
        `available until ${new Date(f.expiresAt).toISOString()}. JSONL: line 1 is the header, ` +
        "then one record per line; read a page with ?offset=N&limit=M (skip N lines, read M).",
    }));
}
