import { CodedError } from "@atlatl/lro";
import type { Command } from "commander";
import { openApp } from "../../app/open-app.js";
import { globalOverrides } from "../global-options.js";
import { startProgress } from "../progress.js";

/**
 * `atlatl embed [--reset]`: give every memory without a current vector one
 * (imports, seeds, memories captured while the endpoint was down, edited
 * ones). Each batch commits on its own, so an interrupted run is resumed by
 * running it again. `--reset` drops every vector first and binds the store to
 * the configured model (after a model change, which is otherwise refused).
 */
export async function runEmbed(opts: { reset?: boolean }, cmd: Command): Promise<void> {
  const started = performance.now();
  const app = await openApp({
    ...globalOverrides(cmd),
    logEvents: false,
    resetEmbeddings: opts.reset === true,
  });
  try {
    const embeddings = app.embeddings;
    if (!embeddings) {
      throw new CodedError(
        "CONFIG_INVALID",
        "no embeddings endpoint is configured: set [embeddings] url, model and dimensions (or ATLATL_EMBEDDINGS__URL, __MODEL, __DIMENSIONS), e.g. ATLATL_EMBEDDINGS__URL=http://127.0.0.1:11434/v1 ATLATL_EMBEDDINGS__MODEL=nomic-embed-text ATLATL_EMBEDDINGS__DIMENSIONS=768",
      );
    }
    const total = await app.store.count({ status: "any" });
    const bar = startProgress("embed", total);
    let result: Awaited<ReturnType<typeof embeddings.backfill>>;
    try {
      result = await embeddings.backfill(total, (p) => bar.update(p.scanned, p.total));
    } finally {
      bar.stop();
    }
    const seconds = (performance.now() - started) / 1000;
    const { model, dimensions } = embeddings.embedder;
    process.stderr.write(
      `embedded ${result.embedded} of ${result.scanned} memories with ${model} (${dimensions} dimensions, ${embeddings.vectors.capabilities.engine}) in ${seconds.toFixed(2)} s; ${result.scanned - result.embedded} already current${result.pruned > 0 ? `; ${result.pruned} vectors of deleted memories pruned` : ""}\n`,
    );
  } finally {
    await app.close();
  }
}
