/**
 * `@atlatl/lro`: the platform-neutral parts of Large Result Offloading: wire
 * types, errors, the recipe library, estimation, descriptors, events and the
 * layered config resolver. Node-only pieces (writer, sweeper, `Offloader`) are in
 * `@atlatl/lro/node`; the MCP middleware in `@atlatl/lro/mcp`.
 */

export * from "./config/layered.js";
export {
  buildGenericDescriptor,
  type DescribedSection,
  defaultSectionRecipes,
  fillFilePlaceholders,
  GENERIC_SCHEMA_DESCRIPTION,
  genericGuidance,
} from "./descriptor/generic-descriptor.js";
export { type GuidanceInput, nativeGuidance, shellGuidance } from "./descriptor/guidance.js";
export { inferLineSchema } from "./descriptor/infer-schema.js";
export {
  buildMemoryDescriptor,
  type MemoryDescriptorInput,
  type RecordStats,
  RecordStatsAccumulator,
  recipeParamsFromStats,
  recordStats,
  renderMemoryRecipes,
  scoreRange,
} from "./descriptor/memory-descriptor.js";
export { memoryLineSchema } from "./descriptor/memory-schema.js";
export { LIGHT_FIELDS, MEDIUM_EXTRA_FIELDS, projectRecord } from "./descriptor/project.js";
export { isLroError, LroError, type LroErrorCode } from "./errors.js";
export {
  estimateLatinTokens,
  estimateLines,
  estimateTokens,
  isLatinText,
  isTokenizerLoaded,
  LineMeter,
  type LinesEstimate,
  loadTokenizer,
  utf8Length,
  utf8LengthPortable,
} from "./estimate/estimate.js";
export * from "./events/events.js";
export {
  OFFLOAD_FILE_PATTERN,
  OFFLOAD_TEMP_PATTERN,
  offloadFileName,
  offloadTempName,
  type ParsedOffloadFileName,
  parseOffloadFileName,
  sanitizeOperation,
} from "./materialize/file-name.js";
export * from "./recipes/memory-recipes.js";
export { shellQuote, shellWord } from "./recipes/shell-quote.js";
export * from "./types.js";
