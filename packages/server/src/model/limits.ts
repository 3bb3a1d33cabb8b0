/**
 * Bounds on user input, in one place: the model's checks (`new-memory.ts`), the
 * services' argument checks (`services/args.ts`) and the MCP input schemas
 * (`mcp/tools/schemas.ts`) all read these numbers.
 */
export const MEMORY_LIMITS = {
  contentChars: 200_000,
  titleChars: 500,
  namespaceChars: 200,
  tags: 32,
  tagChars: 64,
  summaryChars: 10_000,
  idChars: 200,
} as const;

/** Bounds on the arguments of read operations. */
export const READ_LIMITS = {
  /** Largest page of any read operation. */
  pageSize: 1000,
  cursorChars: 4096,
  /** Longest recall, search or inject_context query, in characters. */
  queryChars: 2000,
} as const;

/**
 * Bounds on one batch capture (`capture_memories`, `POST /v1/memories:batch`),
 * which is one transaction: 1,000 memories load 5,000 notes in five calls, and
 * 4,000,000 bytes (UTF-8 JSON of the items) keep a full batch inside one REST
 * body at the default `max_body_bytes` (4 MiB) with room for the envelope, and
 * hold SQLite's write lock for well under a second; a single memory may still
 * be as large as `MEMORY_LIMITS` allows.
 */
export const BATCH_LIMITS = { memories: 1000, totalBytes: 4_000_000 } as const;

/** Token budget of inject_context's Markdown block. */
export const CONTEXT_BUDGET = { default: 2000, min: 1, max: 1_000_000 } as const;

/** How a namespace is spelled, for messages (the pattern is `NAMESPACE_PATTERN` in memory.ts). */
export const NAMESPACE_RULE = `slash-separated segments of letters, digits, _ or - (at most ${MEMORY_LIMITS.namespaceChars} characters), e.g. _semantic/decisions`;
