/**
 * `@atlatl/lro/node`: the Node-only parts: the `Offloader` engine, the JSONL
 * writer, the config loader (TOML file + environment), the sweeper, the
 * bounded message framer for stdio (with its one `MESSAGE_TOO_LARGE` error),
 * the one JSON-RPC error response builder, the per-request checks of MCP
 * 2026-07-28 and the client's facts that a server or proxy holding the raw
 * messages reads, and the one way both print a URL without its secrets.
 */

// The layered resolver is platform-neutral (also in `@atlatl/lro`); re-exported for config loaders.
export {
  type ConfigEntry,
  type ConfigKeySpec,
  type ConfigOrigin,
  type ConfigSectionSpec,
  type ConfigSource,
  ConfigValueError,
  type ConfigValues,
  configEnvName,
  type ResolvedSection,
  type ResolveSectionOptions,
  resolveConfigSection,
} from "./config/layered.js";
export {
  DEFAULT_OFFLOAD_CONFIG,
  defaultOutputDir,
  EXTRACT_TOOL_MODES,
  type ExtractToolMode,
  type LoadOffloadConfigOptions,
  loadOffloadConfig,
  OFFLOAD_CONFIG_KEYS,
  OFFLOAD_CONFIG_SECTION,
  type OffloadConfig,
  offloadConfigOf,
  type ResolvedOffloadConfig,
  readTomlConfigFile,
} from "./config/offload-config.js";
export {
  type ConfinementOptions,
  type OpenOffloadFile,
  openOffloadFile,
} from "./extract/confine.js";
export {
  checkRecipeParams,
  describeRecipeParams,
  type ExtractArgs,
  type ExtractRequest,
  validateExtractArgs,
} from "./extract/extract-args.js";
export {
  type ExtractResult,
  type ExtractSuccess,
  LroExtractor,
  type LroExtractorOptions,
  type Reoffload,
  type ReoffloadInput,
  type ReoffloadOutcome,
  renderOutput,
} from "./extract/extractor.js";
export {
  JqEngine,
  type JqEngineOptions,
  type JqRunRequest,
  type JqRunResult,
  type JsonValue,
} from "./extract/jq-engine.js";
export {
  type LoadedOffload,
  OffloadFileCache,
  type OffloadFileCacheOptions,
} from "./extract/offload-reader.js";
export {
  type FramerSink,
  lineBoundary,
  type MessageBoundary,
  MessageFramer,
} from "./framing/message-framer.js";
export {
  MESSAGE_TOO_LARGE,
  type MessageTooLargeError,
  type MessageTooLargeOptions,
  messageTooLargeError,
  messageTooLargeResponse,
} from "./framing/message-too-large.js";
export { frameStdioLines, type OversizedLine } from "./framing/stdio-lines.js";
export { EncodedLines, encodeTextLines } from "./materialize/encoded-lines.js";
export {
  nodeOffloadFs,
  type OffloadFileHandle,
  type OffloadFs,
  type OffloadStat,
} from "./materialize/offload-fs.js";
export { ensureOutputDirAtStart } from "./materialize/output-dir-at-start.js";
export {
  ensureOutputDir,
  type JsonlWriter,
  type JsonlWriterOptions,
  openJsonlWriter,
  type PublishOffload,
  type WriteChunksOptions,
  WriteFailedError,
  type WriteJsonlOptions,
  writeJsonlFile,
  writePrivateChunks,
} from "./materialize/write-jsonl.js";
export {
  type InlineOutcome,
  type OffloadedOutcome,
  Offloader,
  type OffloaderOptions,
  type OffloadRecordsInput,
  type OffloadRecordsResult,
  type OffloadSection,
  type OffloadSectionsInput,
  type OffloadSectionsResult,
  type RecordSource,
  type SourceRecord,
  type TruncatedOutcome,
} from "./offload/offloader.js";
export {
  EXTRACT_OPERATION,
  type OffloaderReoffloadOptions,
  offloaderReoffload,
} from "./offload/reoffload.js";
export { localOffloadStore } from "./offload-store/local/local-offload-store.js";
export {
  OFFLOAD_STORE_LIST_LIMIT,
  type OffloadPublication,
  type OffloadStore,
  type OffloadStoreBinding,
  type StoredOffloadFile,
  type StoredOffloadInfo,
  type StoredOffloadKey,
  type SweptOffload,
  sharedBinding,
} from "./offload-store/offload-store.js";
export { type SweepOffloadStoreOptions, sweepOffloadStore } from "./offload-store/sweep-store.js";
export { type ClientFacts, clientFacts, envelopeFacts } from "./protocol/client-facts.js";
export {
  type JsonRpcErrorObject,
  type JsonRpcErrorResponse,
  type JsonRpcId,
  jsonRpcErrorHttpResponse,
  jsonRpcErrorObject,
  jsonRpcErrorResponse,
} from "./protocol/json-rpc-error.js";
export {
  claimedRevision,
  isRequest,
  listenTasksUndeclared,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  MODERN_REVISIONS,
  modernMessageRefusal,
  type RawMessage,
  rawMessage,
  TASKS_EXTENSION,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "./protocol/modern-requests.js";
export { redactUrl, redactUrlSecrets } from "./redact/redact-url.js";
export {
  type ListOffloadFilesOptions,
  listOffloadFiles,
  type OffloadFileInfo,
  type Sweeper,
  type SweeperOptions,
  type SweepOptions,
  startSweeper,
  sweepIntervalMs,
  sweepOffloadDir,
} from "./sweep/sweep.js";
export type { SweepResult } from "./sweep/sweep-run.js";
