/**
 * Synthetic MIF-shaped memory records at the paper's size (~155 tokens each at
 * full detail), with the fields the tasks need: `namespace`, an integer
 * priority (1 = lowest, 5 = highest) at the nested path `extensions.priority`
 * (MIF keeps non-core fields under `extensions`; E4 needs a nested field path,
 * as the paper's filter tasks did) and, in most records, one or two products
 * named in `content` in varied letter case.
 */
import { deriveSeed, int, mulberry32, pick, type Rng, uuid, weighted } from "./rng.js";
import {
  ACTIONS,
  MEMORY_TYPE_BY_PREFIX,
  NAMESPACES,
  PRODUCTS,
  REMEDIES,
  SOURCES,
  STATUSES,
  SUBJECTS,
  TAGS,
} from "./vocabulary.js";

/** One memory record as the corpus stores it (a full-detail line). */
export interface MemoryRecord {
  id: string;
  title: string;
  namespace: string;
  memory_type: string;
  tags: string[];
  created: string;
  modified: string;
  status: string;
  content: string;
  summary: string;
  provenance: { source: string; confidence: number; agent: string };
  extensions: { priority: number };
}

const EPOCH = Date.UTC(2025, 0, 6);
const DAY = 86_400_000;

/**
 * A product name in the letter case the writer happened to use (never another
 * spelling: "mention product Z" must have one answer once case is ignored).
 */
function casing(rng: Rng, name: string): string {
  const r = rng.next();
  if (r < 0.5) return name;
  if (r < 0.75) return name.toLowerCase();
  return name.toUpperCase();
}

function record(rng: Rng): MemoryRecord {
  const namespace = weighted(rng, NAMESPACES);
  const prefix = namespace.split("/")[0] as string;
  const subject = pick(rng, SUBJECTS);
  const remedy = pick(rng, REMEDIES);
  const other = pick(rng, REMEDIES);
  // 85 % of records mention a product in the content, half of those a
  // second one too; some of the others name one only in the title, so a title
  // search is not a content search.
  const product = weighted(rng, PRODUCTS);
  const mode = rng.next();
  const inContent = mode < 0.85;
  const inTitle = !inContent && mode < 0.93;
  const named = inContent ? casing(rng, product) : "the service";
  const second = weighted(rng, PRODUCTS);
  const also = inContent && second !== product && rng.next() < 0.5;
  const created = EPOCH + int(rng, 0, 300) * DAY + int(rng, 0, 86_399) * 1000;
  const modified = created + int(rng, 0, 20) * DAY;
  const tags = [...new Set([pick(rng, TAGS), pick(rng, TAGS)])].sort();
  const title = inTitle
    ? `${product}: ${subject}`
    : `${subject[0]?.toUpperCase()}${subject.slice(1)} (${int(rng, 100, 999)})`;
  return {
    id: uuid(rng),
    title,
    namespace,
    memory_type: MEMORY_TYPE_BY_PREFIX[prefix] ?? "semantic",
    tags,
    created: new Date(created).toISOString(),
    modified: new Date(modified).toISOString(),
    status: weighted(rng, STATUSES),
    content: `${pick(rng, ACTIONS)} ${remedy} after ${subject} on ${named}.${also ? ` ${casing(rng, second)} was affected too.` : ""} Follow-up: ${other}.`,
    summary: `${subject} on ${named}: ${remedy}.`,
    provenance: {
      source: pick(rng, SOURCES),
      confidence: Math.round((0.5 + rng.next() * 0.5) * 100) / 100,
      agent: `agent-${int(rng, 1, 9)}`,
    },
    extensions: {
      priority: weighted(rng, [
        [1, 15],
        [2, 25],
        [3, 25],
        [4, 20],
        [5, 15],
      ]),
    },
  };
}

/** The corpus of `scale` records for `seed` (one independent stream per scale). */
export function generateRecords(seed: number, scale: number): MemoryRecord[] {
  const rng = mulberry32(deriveSeed(seed, `corpus:${scale}`));
  const out: MemoryRecord[] = [];
  const seen = new Set<string>();
  while (out.length < scale) {
    const r = record(rng);
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    out.push(r);
  }
  return out;
}
