export type {
  OffloadStoreBackend,
  OffloadStoreConfig,
} from "./config/offload-store-config.js";
export { type Conversion, convertJsonValue } from "./mif/convert.js";
export { MifError, type MifErrorCode } from "./mif/errors.js";
export {
  type ExportFormat,
  type ExportOptions,
  type ExportReport,
  exportMemories,
  writeMifDocuments,
} from "./mif/export.js";
export { type MemoryFromMif, mifToMemory } from "./mif/from-mif.js";
export {
  formatRejection,
  type ImportOptions,
  type ImportProgress,
  type ImportReport,
  importPath,
} from "./mif/import.js";
export { MIF_CONTEXT_URL, STATUS_EXTENSION_KEY, UNMAPPED_EXTENSION_KEY } from "./mif/keys.js";
export type { ImportRejection } from "./mif/sources.js";
export { memoryToMif } from "./mif/to-mif.js";
export { type MifIssue, type MifValidation, validateMifDocument } from "./mif/validate.js";
export {
  type CursorKind,
  type CursorProblem,
  decodeCursor,
  encodeCursor,
  fingerprint,
} from "./model/cursor.js";
export {
  defaultNamespace,
  deriveTitle,
  UNTITLED,
} from "./model/defaults.js";
export {
  type MemoryRecord,
  toFullRecord,
  toLightRecord,
  toMediumRecord,
  toRecord,
} from "./model/detail.js";
export {
  CONTEXT_BUDGET,
  MEMORY_LIMITS,
  NAMESPACE_RULE,
  READ_LIMITS,
} from "./model/limits.js";
export {
  type EmbeddingRef,
  type EntityRef,
  type FullRecord,
  type LightRecord,
  MEMORY_STATUSES,
  MEMORY_TYPES,
  type MediumRecord,
  type Memory,
  type MemoryStatus,
  type MemoryType,
  NAMESPACE_PATTERN,
  type Provenance,
  type RelationshipRef,
  type Temporal,
} from "./model/memory.js";
export {
  applyPatch,
  type BuildOptions,
  buildMemory,
  type CaptureInput,
  checkMemoryType,
  checkNamespace,
  cleanTags,
  isProblem,
  type MemoryPatch,
  type Problem,
} from "./model/new-memory.js";
export { wellFormed } from "./model/well-formed.js";
export { wikiLinks } from "./model/wiki-links.js";
export {
  type CreateOffloadStoreOptions,
  createOffloadStore,
} from "./offload-store/create-offload-store.js";
export {
  type CorpusOptions,
  generateCorpus,
} from "./seed/generate.js";
export {
  type SeedOptions,
  seedStore,
} from "./seed/seed-store.js";
export {
  checkCursorArg,
  checkLimit,
  type FilterInput,
  type NormalizedFilter,
  normalizeFilter,
} from "./services/args.js";
export {
  type ContextOptions,
  type ContextResult,
  ContextService,
  type EstimateTokens,
} from "./services/context-service.js";
export {
  createServices,
  type Services,
} from "./services/create-services.js";
export {
  fromStoreError,
  invalidArgument,
  isServiceError,
  ServiceError,
  type ServiceErrorCode,
} from "./services/errors.js";
export {
  type ListInput,
  type ListResult,
  ListService,
} from "./services/list-service.js";
export {
  MemoryService,
  type ServiceOptions,
} from "./services/memory-service.js";
export {
  type PositionedHit,
  type RankedPage,
  RankedRead,
} from "./services/ranked-read.js";
export {
  type RecallHit,
  type RecallInput,
  type RecallResult,
  RecallService,
} from "./services/recall-service.js";
export {
  type SearchHit,
  type SearchInput,
  type SearchResult,
  SearchService,
} from "./services/search-service.js";
export {
  conflict,
  isStoreError,
  StoreError,
  type StoreErrorCode,
} from "./store/errors.js";
export {
  type OpenStoreConfig,
  type OpenStoreOptions,
  openStore,
} from "./store/open-store.js";
export type {
  Fielded,
  ListedMemory,
  ListPosition,
  ListQuery,
  ListSort,
  MemoryFilter,
  MemoryStore,
  QuerySyntax,
  RankedHit,
  RankPosition,
  RankQuery,
  ReadFields,
  Scoring,
  SortOrder,
  StoreCapabilities,
  TextHit,
  TextQuery,
  UpdateOptions,
  UpsertReport,
  WholeQuery,
} from "./store/store.js";
