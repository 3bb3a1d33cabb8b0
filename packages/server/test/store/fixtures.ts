/** Memories for store and service tests. */
import type { Memory } from "../../src/model/memory.js";

let counter = 0;

/** A complete memory; every field can be overridden. Ids are stable per call order. */
export function makeMemory(
  overrides: Partial<Memory> & { confidence?: number | null } = {},
): Memory {
  counter++;
  const { confidence, ...rest } = overrides;
  const n = String(counter).padStart(6, "0");
  const created = rest.created ?? new Date(Date.UTC(2025, 0, 1) + counter * 60_000).toISOString();
  return {
    id: `00000000-0000-4000-8000-${n.padStart(12, "0")}`,
    memory_type: "semantic",
    title: `Memory ${n}`,
    content: `Plain content number ${n}.`,
    namespace: "_semantic/general",
    tags: [],
    status: "active",
    created,
    modified: created,
    aliases: [],
    entities: [],
    relationships: [],
    provenance: {
      confidence: confidence === undefined ? 0.5 : confidence,
      trust_level: null,
      source_type: null,
      agent: null,
    },
    temporal: null,
    embedding: null,
    summary: null,
    blocks: null,
    citations: [],
    extensions: {},
    ...rest,
  };
}

/** A memory using every optional structure, including imported leftovers under `extra`. */
export function richMemory(): Memory {
  return makeMemory({
    title: "Adopt PostgreSQL for shared deployments",
    content: "# Decision\n\nWe use **PostgreSQL** when several agents share one store.",
    namespace: "_semantic/decisions",
    tags: ["database", "architecture"],
    aliases: ["pg decision"],
    entities: [
      {
        id: "ent-1",
        name: "PostgreSQL",
        entity_type: "Technology",
        role: "subject",
        extra: { x: 1 },
      },
    ],
    relationships: [{ relationship_type: "supersedes", target: "urn:mif:abc", strength: 0.8 }],
    provenance: {
      confidence: 0.92,
      trust_level: "user_stated",
      source_type: "conversation",
      agent: "claude",
      extra: { "prov:wasGeneratedBy": { "@id": "urn:run:1" } },
    },
    temporal: {
      valid_from: "2025-01-01T00:00:00Z",
      valid_until: null,
      recorded_at: "2025-01-02T00:00:00Z",
      ttl: "P90D",
      decay: {
        model: "exponential",
        half_life: "P30D",
        current_strength: 0.7,
        extra: { lastReinforced: "2025-01-03" },
      },
      access_count: 3,
      last_accessed: null,
      extra: { reinforcementHistory: [{ at: "2025-01-03" }] },
    },
    embedding: {
      model: "text-embedding-3-small",
      model_version: null,
      dimensions: 1536,
      source_text: null,
      vector_uri: "file:///vectors/1.bin",
      normalized: true,
    },
    summary: "PostgreSQL for shared stores.",
    blocks: { rationale: "Concurrency." },
    citations: [{ type: "url", url: "https://www.postgresql.org" }],
    extensions: { "atlatl:mif": { ontology: { id: "x" } }, vendor: { flag: true } },
  });
}
