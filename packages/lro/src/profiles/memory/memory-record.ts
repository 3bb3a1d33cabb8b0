/**
 * The memory record line, defined once: which fields each detail level has
 * and in what order. The builders below are that definition (an object
 * literal per level, so a line is built as fast as a literal builds); the
 * field lists are read off them, and the engine's projection, its line
 * schema and atlatl's record model (`packages/server/src/model/detail.ts`)
 * all use these, so the file's lines and its `line_schema` cannot disagree.
 */
import type { DetailLevel } from "../../types.js";

/** The fields of a `light` line. */
type LightKey =
  | "id"
  | "title"
  | "namespace"
  | "memory_type"
  | "tags"
  | "created"
  | "modified"
  | "status";

/** What a `full` line has beyond `light`. */
type FullExtraKey =
  | "content"
  | "summary"
  | "aliases"
  | "entities"
  | "relationships"
  | "wiki_links"
  | "provenance"
  | "temporal"
  | "embedding"
  | "blocks"
  | "citations"
  | "extensions";

/** `tags` as its own array (a line never shares one with the memory it came from). */
const own = <T>(tags: T): T => (Array.isArray(tags) ? ([...tags] as T) : tags);

/** The `light` line of `m`: identity and classification, no content. */
export function lightRecord<M extends Record<LightKey, unknown>>(m: M): Pick<M, LightKey> {
  return {
    id: m.id,
    title: m.title,
    namespace: m.namespace,
    memory_type: m.memory_type,
    tags: own(m.tags),
    created: m.created,
    modified: m.modified,
    status: m.status,
  };
}

/** A `medium` line: `light`, then content, summary and `confidence` (flattened from provenance). */
export type MediumLine<M extends Record<LightKey, unknown>> = Pick<M, LightKey> & {
  content: string;
  summary: string | null;
  confidence: number | null;
};

/** The `medium` line of `m`, with its provenance's `confidence` (null if none). */
export function mediumRecord<
  M extends Record<LightKey, unknown> & { content?: unknown; summary?: unknown },
>(m: M, confidence: number | null): MediumLine<M> {
  return {
    ...lightRecord(m),
    content: (m.content ?? "") as string,
    summary: (m.summary ?? null) as string | null,
    confidence,
  };
}

/** The `full` line: `light`'s fields of `m`, then every other field, from `rest`, in line order. */
export function fullRecord<
  M extends Record<LightKey, unknown>,
  R extends Record<FullExtraKey, unknown>,
>(m: M, rest: R): Pick<M, LightKey> & Pick<R, FullExtraKey> {
  return {
    ...lightRecord(m),
    content: rest.content,
    summary: rest.summary,
    aliases: rest.aliases,
    entities: rest.entities,
    relationships: rest.relationships,
    wiki_links: rest.wiki_links,
    provenance: rest.provenance,
    temporal: rest.temporal,
    embedding: rest.embedding,
    blocks: rest.blocks,
    citations: rest.citations,
    extensions: rest.extensions,
  };
}

/** A record to read the builders' key order off (every field undefined). */
const PROBE = {} as Record<LightKey | FullExtraKey, undefined>;

/** The fields of a memory record line at each detail level, in line order. */
export const MEMORY_RECORD_FIELDS: Readonly<Record<DetailLevel, readonly string[]>> = Object.freeze(
  {
    light: Object.freeze(Object.keys(lightRecord(PROBE))),
    medium: Object.freeze(Object.keys(mediumRecord(PROBE, null))),
    full: Object.freeze(Object.keys(fullRecord(PROBE, PROBE))),
  },
);
