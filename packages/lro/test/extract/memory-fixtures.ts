/**
 * Deterministic, realistic memory records at the three detail levels (brief,
 * "Detail levels"), and offload files made of them. Shared by the extraction
 * tests and `packages/bench/src/lro-extract.ts`. Some records carry the text
 * that trips naive re-implementations of jq: tabs and newlines in titles (for
 * `@tsv`), DEL and control characters, non-ASCII letters that fold to ASCII
 * under Unicode case folding (`ß`, the Kelvin sign), astral characters,
 * duplicate timestamps (sort stability) and null or missing confidences.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ulid } from "ulid";
import type { DetailLevel, OffloadHeader } from "../../src/types.js";
import { type ProjectableMemory, projectForTest, seeded } from "../fixtures/memory-records.js";

/** The engine tests' seeded PRNG (mulberry32): the same seed gives the same records. */
export const rng = seeded;

const NAMESPACES = [
  "_semantic/decisions",
  "_semantic/knowledge",
  "_semantic/entities",
  "_episodic/sessions",
  "_episodic/incidents",
  "_procedural/runbooks",
  "_procedural/patterns",
  "projects/atlatl",
  "projects/atlatl/storage",
  "team-notes",
];
const TYPES = ["semantic", "episodic", "procedural"] as const;
const TAGS = [
  "architecture",
  "caching",
  "database",
  "postgres",
  "sqlite",
  "auth",
  "api",
  "performance",
  "security",
  "testing",
  "deployment",
  "ux",
  "mcp",
  "lro",
];
const SUBJECTS = [
  "Caching strategy",
  "Auth token rotation",
  "Database migration",
  "API rate limiting",
  "Incident: cache stampede",
  "Runbook: restore backup",
  "Decision: use SQLite by default",
  "Performance of recall",
  "Deployment checklist",
  "Error budget policy",
  "Naming conventions",
  "Café menu service",
  "Straße address parsing",
  "Temperature in K (Kelvin)",
  "Résumé builder",
  "数据库 index tuning",
  "Emoji support 🚀",
  "Tab\tseparated title",
  "Line\nbreak title",
  "Backslash \\ path C:\\tmp",
  "Quote \"double\" and 'single'",
  "DEL\u007fchar",
];
const WORDS =
  "the cache layer keeps hot keys in memory while postgres stores the durable copy and sqlite serves local installs we measured recall latency at p50 under ten milliseconds after adding an index on namespace tokens expire hourly and rotation happens on deploy".split(
    " ",
  );

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)] as T;
}

function uuid(r: () => number): string {
  const hex = () => Math.floor(r() * 16).toString(16);
  const part = (n: number) => Array.from({ length: n }, hex).join("");
  return `${part(8)}-${part(4)}-4${part(3)}-a${part(3)}-${part(12)}`;
}

function sentence(r: () => number, n: number): string {
  const words = Array.from({ length: n }, () => pick(r, WORDS));
  const s = words.join(" ");
  return `${s[0]?.toUpperCase() ?? ""}${s.slice(1)}.`;
}

/** One complete memory record (the `full` line), in the model's key order. */
export type FullMemory = Record<string, unknown> & {
  id: string;
  title: string;
  namespace: string;
  memory_type: string;
  tags: string[];
  created: string;
  content: string;
};

/** `count` full memories from `seed`. */
export function makeMemories(count: number, seed = 42): FullMemory[] {
  const r = rng(seed);
  const base = Date.UTC(2025, 0, 1);
  const out: FullMemory[] = [];
  for (let i = 0; i < count; i++) {
    // Every 7th record shares its timestamp with the previous one: sort stability matters.
    const created = new Date(base + (i % 7 === 0 ? i - 1 : i) * 3_600_000).toISOString();
    const subject = pick(r, SUBJECTS);
    const tags = Array.from(
      new Set(Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(r, TAGS))),
    );
    const confidence = i % 11 === 0 ? null : Math.round(r() * 100) / 100;
    const paragraphs = Array.from({ length: 1 + Math.floor(r() * 3) }, () =>
      sentence(r, 8 + Math.floor(r() * 20)),
    );
    if (i % 13 === 0) paragraphs.push("Unicode: naïve café — 東京 🚀 Straße K-value ﬁle.");
    if (i % 17 === 0) paragraphs.push("Control chars: \u0001 bell\u0007 DEL\u007f end.");
    out.push({
      id: uuid(r),
      memory_type: pick(r, TYPES),
      title: `${subject} #${i}`,
      content: `## ${subject}\n\n${paragraphs.join("\n\n")}`,
      namespace: pick(r, NAMESPACES),
      tags,
      status: i % 19 === 0 ? "archived" : "active",
      created,
      modified: created,
      aliases: i % 5 === 0 ? [`alias-${i}`] : [],
      entities: [
        {
          id: `entity-${i % 9}`,
          name: `Entity ${i % 9}`,
          entity_type: "component",
          role: "subject",
        },
      ],
      relationships:
        i > 0 ? [{ relationship_type: "relates_to", target: `m-${i - 1}`, strength: 0.5 }] : [],
      provenance: {
        confidence,
        trust_level: pick(r, ["user_stated", "inferred", "verified"]),
        source_type: pick(r, ["conversation", "document", "tool"]),
        agent: "claude",
      },
      temporal: {
        valid_from: created,
        valid_until: null,
        recorded_at: created,
        ttl: null,
        decay: { model: "exponential", half_life: "P30D", current_strength: 0.75 },
        access_count: Math.floor(r() * 40),
        last_accessed: null,
      },
      embedding: null,
      summary: i % 3 === 0 ? null : sentence(r, 6),
      blocks: null,
      citations: [],
      extensions: {},
    });
  }
  return out;
}

/** The record line of `m` at `detail` (brief: light, medium, full). */
export function projectMemory(m: FullMemory, detail: DetailLevel): Record<string, unknown> {
  return projectForTest(m as FullMemory & ProjectableMemory, detail);
}

/** Options of {@link writeOffloadFixture}. */
export interface OffloadFixture {
  /** Absolute path of the written file. */
  path: string;
  header: OffloadHeader;
  /** The record lines as written (no newline). */
  lines: string[];
}

/**
 * Write `records` as an offload file (header + one line each) into `dir`
 * (created 0700), named `atlatl-{operation}-{ULID}.jsonl`, mode 0600.
 */
export function writeOffloadFixture(
  dir: string,
  records: readonly unknown[],
  options: { detail: DetailLevel; operation?: string; query?: string | null; time?: number },
): OffloadFixture {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const operation = options.operation ?? "recall";
  const lines = records.map((r) => JSON.stringify(r));
  const header: OffloadHeader = {
    type: "lro_header",
    operation,
    query: options.query ?? "fixture query",
    count: records.length,
    schema_version: "0.1.0",
    timestamp: new Date(options.time ?? Date.now()).toISOString(),
    estimated_tokens: Math.ceil(lines.reduce((n, l) => n + l.length, 0) / 4),
    detail: options.detail,
  };
  const path = join(dir, `atlatl-${operation}-${ulid(options.time ?? Date.now())}.jsonl`);
  const body = lines.length > 0 ? `${lines.join("\n")}\n` : "";
  writeFileSync(path, `${JSON.stringify(header)}\n${body}`, { mode: 0o600 });
  return { path, header, lines };
}
