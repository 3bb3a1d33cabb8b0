/**
 * `@atlatl/lro/node`: the Node-only parts: the `Offloader` engine, the JSONL
 * writer, the config loader (TOML file + environment) and the sweeper.
 */

// The layered resolver is platform-neutral (also in `@atlatl/lro`); re-exported for config loaders.
export * from "./config/layered.js";
export * from "./config/offload-config.js";
export * from "./extract/confine.js";
export * from "./extract/extract-args.js";
export * from "./extract/extractor.js";
export * from "./extract/fast-recipes.js";
export * from "./extract/jq-engine.js";
export * from "./extract/offload-reader.js";
export * from "./extract/reoffload.js";
export { EncodedLines, encodeTextLines } from "./materialize/encoded-lines.js";
export {
  nodeOffloadFs,
  type OffloadFileHandle,
  type OffloadFs,
  type OffloadStat,
} from "./materialize/offload-fs.js";
export {
  ensureOutputDir,
  type JsonlWriter,
  type JsonlWriterOptions,
  openJsonlWriter,
  type WriteChunksOptions,
  WriteFailedError,
  type WriteJsonlOptions,
  writeJsonlFile,
  writePrivateChunks,
} from "./materialize/write-jsonl.js";
export * from "./offload/offloader.js";
export * from "./sweep/sweep.js";
