/**
 * `@atlatl/lro`: the platform-neutral parts of Large Result Offloading: wire
 * types, errors, the profiles (memory, records, sections: projection, schema,
 * summary, recipes, guidance), estimation, events and the layered config
 * resolver. Node-only pieces (writer, sweeper, `Offloader`) are in
 * `@atlatl/lro/node`; the MCP middleware in `@atlatl/lro/mcp`.
 */

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
  inferLineSchema,
  type JsonType,
  LineSchemaAccumulator,
} from "./descriptor/infer-schema.js";
export {
  CodedError,
  type CodedErrorCode,
  ERROR_CODES,
  isCodedError,
  isLroError,
  LroError,
  type LroErrorCode,
} from "./errors.js";
export {
  estimateLatinTokens,
  estimateLines,
  estimateTokens,
  isLatinText,
  LineMeter,
  type LinesEstimate,
  loadTokenizer,
  utf8Length,
  utf8LengthPortable,
} from "./estimate/estimate.js";
export {
  type LroEvent,
  type LroEventListener,
  type LroEventOf,
  type LroEventSink,
  LroEvents,
  type LroEventType,
  type OffloadCreatedEvent,
  type OffloadFileExpiredEvent,
  type OffloadSweepCompletedEvent,
  type OffloadWriteFailedEvent,
  stderrSink,
} from "./events/events.js";
export { LRO_EXTRACT_TOOL_NAME } from "./extract/tool-name.js";
export {
  ATTACHMENT_EXTENSIONS,
  type AttachmentExtension,
  DEFAULT_FILE_PREFIX,
  OFFLOAD_FILE_PATTERN,
  OFFLOAD_TEMP_PATTERN,
  type OffloadFileNaming,
  offloadFileName,
  offloadFileNaming,
  offloadTempName,
  type ParsedOffloadFileName,
  parseOffloadFileName,
  sanitizeOperation,
} from "./materialize/file-name.js";
export { type GuidanceInput, nativeGuidance, shellGuidance } from "./profiles/memory/guidance.js";
export {
  buildMemoryDescriptor,
  type MemoryDescriptorInput,
  type RecordStats,
  RecordStatsAccumulator,
  recipeParamsFromStats,
  recordStats,
  renderMemoryRecipes,
  scoreRange,
} from "./profiles/memory/memory-descriptor.js";
export { MEMORY_PROFILE, memoryProfile } from "./profiles/memory/memory-profile.js";
export {
  DEFAULT_RECIPE_PARAMS,
  inlineRecipeParams,
  type MemoryRecipeSpec,
  memoryRecipe,
  memoryRecipes,
  type RecipeParamName,
  renderRecipeCommand,
} from "./profiles/memory/memory-recipes.js";
export {
  fullRecord,
  lightRecord,
  MEMORY_RECORD_FIELDS,
  type MediumLine,
  mediumRecord,
} from "./profiles/memory/memory-record.js";
export { memoryLineSchema } from "./profiles/memory/memory-schema.js";
export { projectRecord } from "./profiles/memory/project.js";
export type {
  AnyProfile,
  DescribeInput,
  Profile,
  ProfileAccumulator,
  RecordsOf,
} from "./profiles/profile.js";
export {
  type FieldStats,
  type RecordsStats,
  RecordsStatsAccumulator,
} from "./profiles/records/field-stats.js";
export {
  RECORDS_PROFILE,
  RECORDS_SCHEMA_VERSION,
  type RecordsOffloadResponse,
  type RecordsSummary,
  recordsGuidance,
  recordsProfile,
} from "./profiles/records/records-profile.js";
export { jqPath, recordsRecipes } from "./profiles/records/records-recipes.js";
export {
  BUILTIN_PROFILES,
  type BuiltinProfileName,
  headerProfileName,
  profileByName,
} from "./profiles/registry.js";
export {
  buildGenericDescriptor,
  type DescribedSection,
  defaultSectionRecipes,
  fillFilePlaceholders,
  GENERIC_SCHEMA_DESCRIPTION,
  genericGuidance,
} from "./profiles/sections/sections-descriptor.js";
export {
  DEFAULT_SECTION_KEY,
  SECTIONS_PROFILE,
  SECTIONS_SCHEMA_VERSION,
  type SectionStats,
  sectionsProfile,
} from "./profiles/sections/sections-profile.js";
export { inlineJqParams, type RecipeSpec, renderJqCommand } from "./recipes/recipe-spec.js";
export { shellQuote, shellWord } from "./recipes/shell-quote.js";
export {
  type CapNotice,
  type CompactShape,
  DETAIL_LEVELS,
  type DetailLevel,
  type GenericOffloadResponse,
  type JqRecipe,
  type JsonSchema,
  type MemoryOperation,
  MIF_SCHEMA_VERSION,
  type OffloadedFile,
  type OffloadHeader,
  type OffloadResponse,
  type OffloadSummary,
} from "./types.js";
