/**
 * Building and changing memories from user input: ids, defaults, derived titles
 * and validation. Validation returns a {@link Problem} (which field, what to do)
 * instead of throwing, so each layer can wrap it in its own error type.
 */
import { randomUUID } from "node:crypto";
import { defaultNamespace, deriveTitle } from "./defaults.js";
import { MEMORY_LIMITS, NAMESPACE_RULE } from "./limits.js";
import {
  MEMORY_STATUSES,
  MEMORY_TYPES,
  type Memory,
  type MemoryStatus,
  type MemoryType,
  NAMESPACE_PATTERN,
} from "./memory.js";
import { wellFormed } from "./well-formed.js";

/** A validation failure: the offending field and a message a model can act on. */
export interface Problem {
  field: string;
  message: string;
}

/** What `capture` accepts. Only `content` is required. */
export interface CaptureInput {
  content: string;
  title?: string | undefined;
  namespace?: string | undefined;
  memory_type?: MemoryType | undefined;
  tags?: readonly string[] | undefined;
  /** In [0, 1]; null or absent means unknown. */
  confidence?: number | null | undefined;
  summary?: string | null | undefined;
}

/** A partial change: absent (or undefined) fields stay; `null` clears a nullable field. */
export interface MemoryPatch {
  title?: string | undefined;
  content?: string | undefined;
  namespace?: string | undefined;
  memory_type?: MemoryType | undefined;
  tags?: readonly string[] | undefined;
  status?: MemoryStatus | undefined;
  confidence?: number | null | undefined;
  summary?: string | null | undefined;
}

function checkContent(content: unknown): Problem | undefined {
  if (typeof content !== "string" || content.trim().length === 0) {
    return { field: "content", message: "content is required: non-empty Markdown text." };
  }
  if (content.length > MEMORY_LIMITS.contentChars) {
    return {
      field: "content",
      message: `content is ${content.length} characters; the limit is ${MEMORY_LIMITS.contentChars}. Split it into several memories.`,
    };
  }
  return undefined;
}

function checkTitle(title: unknown): Problem | undefined {
  if (typeof title !== "string" || title.trim().length === 0) {
    return { field: "title", message: "title must be non-empty text (or omitted to derive it)." };
  }
  if (title.length > MEMORY_LIMITS.titleChars) {
    return {
      field: "title",
      message: `title must be at most ${MEMORY_LIMITS.titleChars} characters.`,
    };
  }
  return undefined;
}

/** Checks a namespace against the MIF pattern. */
export function checkNamespace(namespace: unknown, field = "namespace"): Problem | undefined {
  if (
    typeof namespace !== "string" ||
    namespace.length > MEMORY_LIMITS.namespaceChars ||
    !NAMESPACE_PATTERN.test(namespace)
  ) {
    return {
      field,
      message: `${field} must be ${NAMESPACE_RULE}; got ${JSON.stringify(namespace)}.`,
    };
  }
  return undefined;
}

/** Checks a memory type name. */
export function checkMemoryType(type: unknown, field = "memory_type"): Problem | undefined {
  if (typeof type !== "string" || !(MEMORY_TYPES as readonly string[]).includes(type)) {
    return {
      field,
      message: `${field} must be one of ${MEMORY_TYPES.join(", ")}; got ${JSON.stringify(type)}.`,
    };
  }
  return undefined;
}

function checkStatus(status: unknown): Problem | undefined {
  if (typeof status !== "string" || !(MEMORY_STATUSES as readonly string[]).includes(status)) {
    return {
      field: "status",
      message: `status must be one of ${MEMORY_STATUSES.join(", ")}; got ${JSON.stringify(status)}.`,
    };
  }
  return undefined;
}

/**
 * Checks a tag list and returns it cleaned (trimmed, duplicates dropped, order kept).
 * Used for memory tags and for tag filters alike.
 */
export function cleanTags(tags: unknown, field = "tags"): { tags: string[] } | Problem {
  if (!Array.isArray(tags)) return { field, message: `${field} must be an array of strings.` };
  const out: string[] = [];
  for (const tag of tags) {
    if (typeof tag !== "string" || tag.trim().length === 0) {
      return { field, message: `${field} must contain only non-empty strings.` };
    }
    const t = tag.trim();
    if (t.length > MEMORY_LIMITS.tagChars) {
      return {
        field,
        message: `tag ${JSON.stringify(t.slice(0, 20))}… is longer than ${MEMORY_LIMITS.tagChars} characters.`,
      };
    }
    if (!out.includes(t)) out.push(t);
  }
  if (out.length > MEMORY_LIMITS.tags) {
    return { field, message: `at most ${MEMORY_LIMITS.tags} ${field} are allowed.` };
  }
  return { tags: out };
}

function checkConfidence(confidence: unknown): Problem | undefined {
  if (confidence === null) return undefined;
  if (typeof confidence !== "number" || !Number.isFinite(confidence)) {
    return { field: "confidence", message: "confidence must be a number from 0 to 1." };
  }
  if (confidence < 0 || confidence > 1) {
    return {
      field: "confidence",
      message: `confidence must be from 0 to 1; got ${confidence}.`,
    };
  }
  return undefined;
}

function checkSummary(summary: unknown): Problem | undefined {
  if (summary === null) return undefined;
  if (typeof summary !== "string") return { field: "summary", message: "summary must be text." };
  if (summary.length > MEMORY_LIMITS.summaryChars) {
    return {
      field: "summary",
      message: `summary must be at most ${MEMORY_LIMITS.summaryChars} characters.`,
    };
  }
  return undefined;
}

/** Options for {@link buildMemory}: injectable id and clock for tests. */
export interface BuildOptions {
  id?: string;
  now?: Date;
}

/**
 * A complete new memory from capture input: id `crypto.randomUUID()`, title
 * derived from the content when absent, type `semantic` and namespace
 * `_{type}/general` by default, created = modified = now, status `active`.
 */
export function buildMemory(raw: CaptureInput, options: BuildOptions = {}): Memory | Problem {
  if (raw === null || typeof raw !== "object") {
    return { field: "content", message: "content is required: non-empty Markdown text." };
  }
  const input = wellFormed(raw);
  const problem =
    checkContent(input.content) ??
    (input.title !== undefined ? checkTitle(input.title) : undefined) ??
    (input.memory_type !== undefined ? checkMemoryType(input.memory_type) : undefined) ??
    (input.namespace !== undefined ? checkNamespace(input.namespace) : undefined) ??
    (input.confidence !== undefined ? checkConfidence(input.confidence) : undefined) ??
    (input.summary !== undefined ? checkSummary(input.summary) : undefined);
  if (problem) return problem;
  const tags = cleanTags(input.tags ?? [], "tags");
  if ("field" in tags) return tags;

  const type = input.memory_type ?? "semantic";
  const now = (options.now ?? new Date()).toISOString();
  return {
    id: options.id ?? randomUUID(),
    memory_type: type,
    title: input.title !== undefined ? input.title.trim() : deriveTitle(input.content),
    content: input.content,
    namespace: input.namespace ?? defaultNamespace(type),
    tags: tags.tags,
    status: "active",
    created: now,
    modified: now,
    aliases: [],
    entities: [],
    relationships: [],
    provenance: {
      confidence: input.confidence ?? null,
      trust_level: null,
      source_type: null,
      agent: null,
    },
    temporal: null,
    embedding: null,
    summary: input.summary ?? null,
    blocks: null,
    citations: [],
    extensions: {},
  };
}

/**
 * `memory` with `patch` applied and `modified` set to `now` (kept strictly after
 * the previous value so "recently modified" ordering sees the change).
 */
export function applyPatch(
  memory: Memory,
  rawPatch: MemoryPatch,
  now = new Date(),
): Memory | Problem {
  if (rawPatch === null || typeof rawPatch !== "object") {
    return { field: "patch", message: "the update must be an object of fields to change." };
  }
  const patch = wellFormed(rawPatch);
  const problem =
    (patch.content !== undefined ? checkContent(patch.content) : undefined) ??
    (patch.title !== undefined ? checkTitle(patch.title) : undefined) ??
    (patch.memory_type !== undefined ? checkMemoryType(patch.memory_type) : undefined) ??
    (patch.namespace !== undefined ? checkNamespace(patch.namespace) : undefined) ??
    (patch.status !== undefined ? checkStatus(patch.status) : undefined) ??
    (patch.confidence !== undefined ? checkConfidence(patch.confidence) : undefined) ??
    (patch.summary !== undefined ? checkSummary(patch.summary) : undefined);
  if (problem) return problem;
  let tags = memory.tags;
  if (patch.tags !== undefined) {
    const cleaned = cleanTags(patch.tags, "tags");
    if ("field" in cleaned) return cleaned;
    tags = cleaned.tags;
  }
  const previous = Date.parse(memory.modified);
  const stamp =
    Number.isFinite(previous) && previous >= now.getTime() ? previous + 1 : now.getTime();
  return {
    ...memory,
    title: patch.title !== undefined ? patch.title.trim() : memory.title,
    content: patch.content ?? memory.content,
    namespace: patch.namespace ?? memory.namespace,
    memory_type: patch.memory_type ?? memory.memory_type,
    status: patch.status ?? memory.status,
    tags,
    summary: patch.summary !== undefined ? patch.summary : memory.summary,
    provenance:
      patch.confidence !== undefined
        ? { ...memory.provenance, confidence: patch.confidence }
        : memory.provenance,
    modified: new Date(stamp).toISOString(),
  };
}

/** True when `value` is a {@link Problem} rather than a memory. */
export function isProblem(value: Memory | Problem): value is Problem {
  return "field" in value && "message" in value && !("id" in value);
}
