/**
 * Synthetic MIF-shaped memory records at the paper's size (~155 tokens each at
 * full detail), with the fields the tasks need: `namespace`, an integer
 * `priority` (1 = lowest, 5 = highest) and, in most records, a product named in
 * `content` in varied letter case.
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
  priority: number;
  content: string;
  summary: string;
  provenance: { source: string; confidence: number; agent: string };
}

const EPOCH = Date.UTC(2025, 0, 6);
const DAY = 86_400_000;

/** A product name in the case the writer happened to use. */
function casing(rng: Rng, name: string): string {
  const r = rng.next();
  if (r < 0.5) return name;
  if (r < 0.7) return name.toLowerCase();
  if (r < 0.85) return name.toUpperCase();
  return name.replace(/ /g, "-").toLowerCase();
}

function record(rng: Rng): MemoryRecord {
  const namespace = weighted(rng, NAMESPACES);
  const prefix = namespace.split("/")[0] as string;
  const subject = pick(rng, SUBJECTS);
  const remedy = pick(rng, REMEDIES);
  const other = pick(rng, REMEDIES);
  // 80 % of records mention a product in the content; some of the others name
  // one only in the title, so a title search is not a content search.
  const product = weighted(rng, PRODUCTS);
  const mode = rng.next();
  const inContent = mode < 0.8;
  const inTitle = !inContent && mode < 0.9;
  const named = inContent ? casing(rng, product) : "the service";
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
    priority: weighted(rng, [
      [1, 15],
      [2, 25],
      [3, 25],
      [4, 20],
      [5, 15],
    ]),
    content: `${pick(rng, ACTIONS)} ${remedy} after ${subject} on ${named}. Follow-up: ${other}, reviewed weekly.`,
    summary: `${subject} on ${named}: ${remedy}.`,
    provenance: {
      source: pick(rng, SOURCES),
      confidence: Math.round((0.5 + rng.next() * 0.5) * 100) / 100,
      agent: `agent-${int(rng, 1, 9)}`,
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
