/**
 * The packages' public API as users import it: each entry point of each
 * package's `exports` map exports exactly the names pinned here (a change to
 * the API is a change to this file, made on purpose), by explicit named
 * exports (no `export *`, which lets whatever a module adds leak out); every
 * subpath the README and docs name exists; and `atlatl`'s main entry does not
 * load better-sqlite3 (a native module a PostgreSQL or library user may not
 * have built).
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

interface Manifest {
  name: string;
  private?: boolean;
  exports: Record<string, { source: string }>;
}

const packages = ["lro", "server", "proxy", "eval"].map((dir) => ({
  dir: join(root, "packages", dir),
  manifest: JSON.parse(
    readFileSync(join(root, "packages", dir, "package.json"), "utf8"),
  ) as Manifest,
}));

/** `name` plus the subpath (`@atlatl/lro/node`), as users import it. */
const specifier = (name: string, subpath: string) =>
  subpath === "." ? name : `${name}/${subpath.slice(2)}`;

/** The run-time names (values, classes, functions) of each entry point, sorted. */
const PINNED: Record<string, string[]> = {
  "@atlatl/lro": [
    "ATTACHMENT_EXTENSIONS",
    "BUILTIN_PROFILES",
    "CodedError",
    "ConfigValueError",
    "DEFAULT_FILE_PREFIX",
    "DEFAULT_RECIPE_PARAMS",
    "DEFAULT_SECTION_KEY",
    "DETAIL_LEVELS",
    "ERROR_CODES",
    "GENERIC_SCHEMA_DESCRIPTION",
    "LRO_EXTRACT_TOOL_NAME",
    "LineMeter",
    "LineSchemaAccumulator",
    "LroError",
    "LroEvents",
    "MEMORY_PROFILE",
    "MEMORY_RECORD_FIELDS",
    "MIF_SCHEMA_VERSION",
    "OFFLOAD_FILE_PATTERN",
    "OFFLOAD_TEMP_PATTERN",
    "RECORDS_PROFILE",
    "RECORDS_SCHEMA_VERSION",
    "RecordStatsAccumulator",
    "RecordsStatsAccumulator",
    "SECTIONS_PROFILE",
    "SECTIONS_SCHEMA_VERSION",
    "buildGenericDescriptor",
    "buildMemoryDescriptor",
    "configEnvName",
    "defaultSectionRecipes",
    "estimateLatinTokens",
    "estimateLines",
    "estimateTokens",
    "fillFilePlaceholders",
    "fullRecord",
    "genericGuidance",
    "headerProfileName",
    "inferLineSchema",
    "inlineJqParams",
    "inlineRecipeParams",
    "isCodedError",
    "isLatinText",
    "isLroError",
    "jqPath",
    "lightRecord",
    "loadTokenizer",
    "mediumRecord",
    "memoryLineSchema",
    "memoryProfile",
    "memoryRecipe",
    "memoryRecipes",
    "nativeGuidance",
    "offloadFileName",
    "offloadFileNaming",
    "offloadTempName",
    "parseOffloadFileName",
    "profileByName",
    "projectRecord",
    "recipeParamsFromStats",
    "recordStats",
    "recordsGuidance",
    "recordsProfile",
    "recordsRecipes",
    "renderJqCommand",
    "renderMemoryRecipes",
    "renderRecipeCommand",
    "resolveConfigSection",
    "sanitizeOperation",
    "scoreRange",
    "sectionsProfile",
    "shellGuidance",
    "shellQuote",
    "shellWord",
    "stderrSink",
    "utf8Length",
    "utf8LengthPortable",
  ],
  "@atlatl/lro/node": [
    "ConfigValueError",
    "DEFAULT_OFFLOAD_CONFIG",
    "EXTRACT_OPERATION",
    "EXTRACT_TOOL_MODES",
    "EncodedLines",
    "JqEngine",
    "LroExtractor",
    "MESSAGE_TOO_LARGE",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "MODERN_REVISIONS",
    "MessageFramer",
    "OFFLOAD_CONFIG_KEYS",
    "OFFLOAD_CONFIG_SECTION",
    "OFFLOAD_STORE_LIST_LIMIT",
    "OffloadFileCache",
    "Offloader",
    "TASKS_EXTENSION",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "WriteFailedError",
    "checkRecipeParams",
    "claimedRevision",
    "clientFacts",
    "configEnvName",
    "defaultOutputDir",
    "describeRecipeParams",
    "encodeTextLines",
    "ensureOutputDir",
    "ensureOutputDirAtStart",
    "envelopeFacts",
    "frameStdioLines",
    "isRequest",
    "jsonRpcErrorHttpResponse",
    "jsonRpcErrorObject",
    "jsonRpcErrorResponse",
    "lineBoundary",
    "listOffloadFiles",
    "listenTasksUndeclared",
    "loadOffloadConfig",
    "localOffloadStore",
    "messageTooLargeError",
    "messageTooLargeResponse",
    "modernMessageRefusal",
    "nodeOffloadFs",
    "offloadConfigOf",
    "offloaderReoffload",
    "openJsonlWriter",
    "openOffloadFile",
    "rawMessage",
    "readTomlConfigFile",
    "redactUrl",
    "redactUrlSecrets",
    "renderOutput",
    "resolveConfigSection",
    "sharedBinding",
    "startSweeper",
    "sweepIntervalMs",
    "sweepOffloadDir",
    "sweepOffloadStore",
    "validateExtractArgs",
    "writeJsonlFile",
    "writePrivateChunks",
  ],
  "@atlatl/lro/mcp": [
    "AUTO_POLICY",
    "DEFAULT_MCP_NAMES",
    "LRO_EXTRACT_TOOL_NAME",
    "LRO_PROXY_CAPABILITY",
    "OFFLOAD_LIST_CACHE",
    "OFFLOAD_LIST_EVENTS",
    "OFFLOAD_META_PREFIX",
    "OFFLOAD_MIME_TYPE",
    "OFFLOAD_RESOURCE_PREFIX",
    "OFFLOAD_RESOURCE_TEMPLATE_NAME",
    "RECORDS_MARK",
    "REQUEST_CAPABILITIES_META",
    "REQUEST_CLIENT_INFO_META",
    "TEXT_BLOCK_MARK",
    "TEXT_LINE_SCHEMA",
    "declareOffloadsLocally",
    "estimateCallResultTokens",
    "extractResultToToolResult",
    "isOffloadableRecords",
    "jsonIndentOf",
    "layoutResult",
    "mcpNames",
    "mountResources",
    "mountTools",
    "offloadCacheFields",
    "offloadCallToolResult",
    "offloadLaidOut",
    "offloadLayout",
    "offloadResourceUri",
    "offloadsLocally",
    "outputSchemaMetaKey",
    "readWholeSet",
    "reassembleResult",
    "recordRecipes",
    "registerLroExtract",
    "registerOffloadResources",
    "requestOffloadsLocally",
    "resolveProfile",
    "respond",
    "textRecipes",
    "toolErrorResult",
    "withOffload",
    "withoutOutputSchema",
  ],
  atlatl: [
    "CONTEXT_BUDGET",
    "ContextService",
    "ListService",
    "MEMORY_LIMITS",
    "MEMORY_STATUSES",
    "MEMORY_TYPES",
    "MIF_CONTEXT_URL",
    "MemoryService",
    "MifError",
    "NAMESPACE_PATTERN",
    "NAMESPACE_RULE",
    "READ_LIMITS",
    "RankedRead",
    "RecallService",
    "STATUS_EXTENSION_KEY",
    "SearchService",
    "ServiceError",
    "StoreError",
    "UNMAPPED_EXTENSION_KEY",
    "UNTITLED",
    "applyPatch",
    "buildMemory",
    "checkCursorArg",
    "checkLimit",
    "checkMemoryType",
    "checkNamespace",
    "cleanTags",
    "conflict",
    "convertJsonValue",
    "createOffloadStore",
    "createServices",
    "decodeCursor",
    "defaultNamespace",
    "deriveTitle",
    "encodeCursor",
    "exportMemories",
    "fingerprint",
    "formatRejection",
    "fromStoreError",
    "generateCorpus",
    "importPath",
    "invalidArgument",
    "isProblem",
    "isServiceError",
    "isStoreError",
    "memoryToMif",
    "mifToMemory",
    "normalizeFilter",
    "openStore",
    "seedStore",
    "toFullRecord",
    "toLightRecord",
    "toMediumRecord",
    "toRecord",
    "validateMifDocument",
    "wellFormed",
    "wikiLinks",
    "writeMifDocuments",
  ],
  "atlatl-proxy": [
    "DEFAULT_TOOL_POLICY",
    "OUTPUT_SCHEMA_META_KEY",
    "PROXY_RESOURCE_PREFIX",
    "RECORDS_MARK",
    "TEXT_BLOCK_MARK",
    "TOOL_CLASH_PREFIX",
    "createProxyEngine",
    "describeTarget",
    "layoutResult",
    "loadProxyConfig",
    "parseHeaders",
    "parseToolPolicies",
    "policyFor",
    "reassembleResult",
    "startProxy",
  ],
  "atlatl-proxy/install": [
    "CLIENT_ECONOMY",
    "CLIENT_NAMES",
    "carryOut",
    "clientNamed",
    "currentClientEnv",
    "installThreshold",
    "isAtlatlServer",
    "jqOnPath",
    "listsExtractTool",
    "planAddServer",
    "planGrantDirectory",
    "planRemoveServer",
    "planRevokeDirectory",
    "planUnwrap",
    "planWrap",
    "prepareOffloadDir",
    "proxyLauncher",
    "servesOffloadResources",
  ],
  "atlatl-eval": [
    "ANSWER_INSTRUCTION",
    "CONDITIONS",
    "DEFAULT_PRICES",
    "DEFAULT_SCALES",
    "DEFAULT_SEED",
    "EXPERIMENTS",
    "FILTER_TRUTH_MAX",
    "FILTER_TRUTH_MIN",
    "FROZEN_DATA_DIR",
    "ID_LOOKUP_ABSENT",
    "ID_LOOKUP_PRESENT",
    "INLINE_PAGE_SIZE",
    "LOCAL_BASE_URLS",
    "MANIFEST_FILE",
    "PRIORITY_OPS",
    "Results",
    "SUMMARY_PAGE_SIZE",
    "TASKS_PER_CONDITION",
    "ablateDescriptor",
    "buildCorpusFiles",
    "conditionById",
    "conditionsFor",
    "corpusFile",
    "costOf",
    "createEnvironment",
    "createModel",
    "createSandbox",
    "filterTasksFile",
    "generateRecords",
    "generateTasks",
    "idTasksFile",
    "loadCorpus",
    "loadPrices",
    "loadResults",
    "main",
    "matchesFilter",
    "priceOf",
    "program",
    "runGrid",
    "runSample",
    "scoreSample",
    "sha256",
    "systemPrompt",
    "tasksOf",
    "wilson",
    "writeCorpusFiles",
    "writeReport",
  ],
};

const entries = packages.flatMap(({ dir, manifest }) =>
  Object.entries(manifest.exports).map(([subpath, target]) => ({
    spec: specifier(manifest.name, subpath),
    source: join(dir, target.source),
  })),
);

describe("entry points", () => {
  it("pins every entry point of every exports map (and no other)", () => {
    expect(entries.map((e) => e.spec).sort()).toEqual(Object.keys(PINNED).sort());
  });

  it.each(entries)("$spec exports exactly its pinned names", async ({ spec }) => {
    const module = (await import(spec)) as Record<string, unknown>;
    expect(Object.keys(module).sort()).toEqual(PINNED[spec]);
  });

  it.each(entries)("$spec names its exports (no `export *`)", ({ source }) => {
    expect(readFileSync(source, "utf8")).not.toMatch(/^export \*/m);
  });
});

describe("documented subpaths", () => {
  const docs = [
    join(root, "README.md"),
    ...packages.map((p) => join(p.dir, "README.md")),
    ...readdirSync(join(root, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => join(root, "docs", f)),
  ];
  const names = packages.map((p) => p.manifest.name);
  // An import of one of our packages (`from "…"`, `import("…")`), or `@atlatl/lro/…` in prose.
  const pattern =
    /(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)["']((?:@atlatl\/lro|atlatl-proxy|atlatl-eval|atlatl)(?:\/[^"']*)?)["']|`(@atlatl\/lro(?:\/[^`\s]*)?)`/g;
  const named = docs.flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(pattern)].map((m) => ({
      file: file.slice(root.length + 1),
      spec: (m[1] ?? m[2]) as string,
    })),
  );

  it("finds the documented imports (the scan reads the docs)", () => {
    expect(named.map((n) => n.spec)).toEqual(
      expect.arrayContaining(["@atlatl/lro/node", "@atlatl/lro/mcp"]),
    );
  });

  it("names only subpaths that the packages' exports maps have", () => {
    const known = new Set(entries.map((e) => e.spec));
    const missing = named.filter(
      (n) => names.some((p) => n.spec.startsWith(p)) && !known.has(n.spec),
    );
    expect(missing).toEqual([]);
  });
});

describe("atlatl's main entry", () => {
  /** The better-sqlite3 files a child Node loaded after importing `module`. */
  async function sqliteLoadedBy(module: string): Promise<string[]> {
    const script = `
      import { createRequire } from "node:module";
      await import(${JSON.stringify(module)});
      const cache = createRequire(import.meta.url).cache;
      process.stdout.write(JSON.stringify(Object.keys(cache).filter((k) => k.includes("better-sqlite3"))));
    `;
    const { stdout } = await run(
      process.execPath,
      ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", script],
      { cwd: root },
    );
    return JSON.parse(stdout) as string[];
  }

  it("does not load better-sqlite3", async () => {
    expect(await sqliteLoadedBy("atlatl")).toEqual([]);
  });

  it("the check sees better-sqlite3 when a module does load it", async () => {
    const sqliteStore = join(root, "packages/server/src/store/sqlite/open-sqlite.ts");
    expect((await sqliteLoadedBy(sqliteStore)).length).toBeGreaterThan(0);
  });
});
