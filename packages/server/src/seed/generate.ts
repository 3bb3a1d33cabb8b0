/**
 * A deterministic synthetic corpus of realistic memories for demos, tests and
 * benchmarks: six namespace categories over the three memory types and five projects,
 * tags from a vocabulary, provenance, short Markdown prose, timestamps over a year,
 * some entities and relationships. The same `(seed)` always yields the same sequence,
 * and a shorter corpus is a prefix of a longer one.
 */
import type {
  EntityRef,
  Memory,
  MemoryStatus,
  Provenance,
  RelationshipRef,
} from "../model/memory.js";
import { DEFAULT_SEED, Prng } from "./prng.js";
import { CATEGORIES, type Category } from "./templates.js";
import { AGENTS, COMPONENTS, PEOPLE, PROJECTS, TECHS, TOPIC_TAGS } from "./vocabulary.js";

export interface CorpusOptions {
  /** How many memories. */
  count: number;
  /** PRNG seed; default 42. */
  seed?: number;
  /** Start of the creation-time window (ISO 8601); default `2025-01-01T00:00:00Z`. */
  from?: string;
  /** Length of the creation-time window in days; default 365. */
  days?: number;
}

const DAY_MS = 86_400_000;
const RECENT_IDS = 64;
const TOTAL_WEIGHT = CATEGORIES.reduce((sum, c) => sum + c.weight, 0);

function pickCategory(rng: Prng): Category {
  let r = rng.next() * TOTAL_WEIGHT;
  for (const category of CATEGORIES) {
    r -= category.weight;
    if (r < 0) return category;
  }
  return CATEGORIES[CATEGORIES.length - 1] as Category;
}

/** ISO 8601 at second precision (`2025-03-04T10:11:12Z`). */
function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

function provenance(rng: Prng): Provenance {
  const r = rng.next();
  const source =
    r < 0.5
      ? "agent_inferred"
      : r < 0.75
        ? "user_explicit"
        : r < 0.85
          ? "user_implicit"
          : r < 0.95
            ? "system_generated"
            : "external_import";
  const confidence = round2(
    source === "user_explicit" ? 0.9 + rng.next() * 0.1 : 0.45 + rng.next() * 0.5,
  );
  const trust =
    source === "user_explicit"
      ? "user_stated"
      : confidence >= 0.85
        ? "high_confidence"
        : confidence >= 0.65
          ? "moderate_confidence"
          : "low_confidence";
  return { confidence, trust_level: trust, source_type: source, agent: rng.pick(AGENTS) };
}

function status(rng: Prng): MemoryStatus {
  const r = rng.next();
  return r < 0.92 ? "active" : r < 0.97 ? "archived" : "superseded";
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** The synthetic memories, lazily. */
export function* generateCorpus(options: CorpusOptions): Generator<Memory> {
  const rng = new Prng(options.seed ?? DEFAULT_SEED);
  const from = Date.parse(options.from ?? "2025-01-01T00:00:00Z");
  const windowMs = (options.days ?? 365) * DAY_MS;
  const recent: string[] = [];

  for (let i = 0; i < options.count; i++) {
    const category = pickCategory(rng);
    const project = rng.pick(PROJECTS);
    const [tech, other] = rng.sample(TECHS, 2) as [(typeof TECHS)[number], (typeof TECHS)[number]];
    const component = rng.pick(COMPONENTS);
    const person = rng.pick(PEOPLE);
    const prose = category.write({ rng, project, tech, other, component, person });

    const tags = [category.tag, prose.topic ?? tech.topic];
    if (category.perProject) tags.push(project.slug);
    if (rng.chance(0.4)) tags.push(rng.pick(TOPIC_TAGS));

    const createdMs = from + rng.next() * windowMs;
    const modifiedMs = rng.chance(0.5) ? createdMs : createdMs + rng.next() * 20 * DAY_MS;

    const entities: EntityRef[] = [];
    if (rng.chance(0.25)) {
      entities.push({
        id: `technology:${slug(tech.name)}`,
        name: tech.name,
        entity_type: "Technology",
        role: "subject",
      });
    }
    if (category.memoryType === "episodic" && rng.chance(0.25)) {
      entities.push({
        id: `person:${slug(person)}`,
        name: person,
        entity_type: "Person",
        role: "participant",
      });
    }
    const relationships: RelationshipRef[] = [];
    if (recent.length > 0 && rng.chance(0.15)) {
      relationships.push({
        relationship_type: rng.pick(["RelatesTo", "RelatesTo", "DerivedFrom", "Supersedes"]),
        target: rng.pick(recent),
        strength: round2(0.5 + rng.next() * 0.5),
      });
    }

    const id = rng.uuid();
    recent.push(id);
    if (recent.length > RECENT_IDS) recent.shift();

    yield {
      id,
      memory_type: category.memoryType,
      title: prose.title,
      content: prose.content,
      namespace: `_${category.memoryType}/${category.name}${category.perProject ? `/${project.slug}` : ""}`,
      tags: [...new Set(tags)],
      status: status(rng),
      created: isoSeconds(createdMs),
      modified: isoSeconds(modifiedMs),
      aliases: [],
      entities,
      relationships,
      provenance: provenance(rng),
      temporal: null,
      embedding: null,
      summary: null,
      blocks: null,
      citations: [],
      extensions: {},
    };
  }
}
