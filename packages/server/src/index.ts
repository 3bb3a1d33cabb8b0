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
  DEFAULT_IMPORT_BATCH_SIZE,
  formatRejection,
  type ImportOptions,
  type ImportProgress,
  type ImportReport,
  importPath,
  MAX_REPORTED_REJECTIONS,
} from "./mif/import.js";
export { MIF_CONTEXT_URL, STATUS_EXTENSION_KEY, UNMAPPED_EXTENSION_KEY } from "./mif/keys.js";
export type { ImportRejection } from "./mif/sources.js";
export { memoryToMif } from "./mif/to-mif.js";
export { type MifIssue, type MifValidation, validateMifDocument } from "./mif/validate.js";
export * from "./model/cursor.js";
export * from "./model/defaults.js";
export * from "./model/detail.js";
export * from "./model/limits.js";
export * from "./model/memory.js";
export * from "./model/new-memory.js";
export * from "./model/well-formed.js";
export * from "./model/wiki-links.js";
export * from "./seed/generate.js";
export * from "./seed/seed-store.js";
export * from "./services/args.js";
export * from "./services/context-service.js";
export * from "./services/create-services.js";
export * from "./services/errors.js";
export * from "./services/list-service.js";
export * from "./services/memory-service.js";
export * from "./services/recall-service.js";
export * from "./services/search-service.js";
export * from "./store/errors.js";
export * from "./store/open-store.js";
export { openSqliteStore, type SqliteStoreOptions } from "./store/sqlite/open-sqlite.js";
export * from "./store/sqlite/sqlite-store.js";
export * from "./store/store.js";
