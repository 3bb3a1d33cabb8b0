/**
 * Structure that MIF Markdown encodes in the body rather than the front matter:
 * `## Relationships` lists (`- relates-to [[target]]`), `## Entities` lists
 * (`- @[[Name|Type]]`) and Obsidian block ids (`text ^block-id`). The body itself stays
 * the memory's content verbatim; these are derived MIF properties beside it.
 */
import type { JsonObject } from "./json-utils.js";
import { MIF_ENTITY_PREFIX, MIF_ID_PREFIX } from "./keys.js";

const RELATIONSHIP_TYPES = new Set([
  "RelatesTo",
  "DerivedFrom",
  "Supersedes",
  "ConflictsWith",
  "PartOf",
  "Implements",
  "Uses",
  "Created",
  "MentionedIn",
]);
const CUSTOM_TYPE = /^[a-zA-Z][a-zA-Z0-9]*:[a-zA-Z][a-zA-Z0-9-]*$/;
const ENTITY_TYPES = ["Person", "Organization", "Technology", "Concept", "File"];
const FENCE = /^\s*(```|~~~)/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const LIST_ITEM = /^\s*[-*+]\s+(.*)$/;

/** Lines of the body outside fenced code blocks. */
function proseLines(body: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of body.split(/\r?\n/)) {
    if (FENCE.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) out.push(line);
  }
  return out;
}

/** List items of the section whose heading text is `name` (any level, case-insensitive). */
function sectionItems(lines: string[], name: string): string[] {
  const items: string[] = [];
  let inSection = false;
  for (const line of lines) {
    const heading = HEADING.exec(line);
    if (heading) {
      inSection = (heading[2] ?? "").toLowerCase() === name;
      continue;
    }
    if (!inSection) continue;
    const item = LIST_ITEM.exec(line);
    if (item?.[1]) items.push(item[1]);
  }
  return items;
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** `relates-to` / `relates_to` / `RelatesTo` → `RelatesTo`; custom `ns:type` kept. */
function relationshipType(word: string): string | undefined {
  if (word.includes(":")) return CUSTOM_TYPE.test(word) ? word : undefined;
  const pascal = word
    .split(/[-_]/)
    .map((part) => (part ? part[0]?.toUpperCase() + part.slice(1) : ""))
    .join("");
  return RELATIONSHIP_TYPES.has(pascal) ? pascal : undefined;
}

/** Relationships listed under `## Relationships`; items with an unknown verb are skipped. */
export function bodyRelationships(body: string): JsonObject[] {
  const out: JsonObject[] = [];
  for (const item of sectionItems(proseLines(body), "relationships")) {
    const match = /^([A-Za-z][\w:-]*)\s+\[\[([^\]|]+)(?:\|[^\]]*)?\]\]/.exec(item.trim());
    if (!match?.[1] || !match[2]) continue;
    const type = relationshipType(match[1]);
    const target = match[2].trim().replace(/^urn:mif:/, "");
    if (!type || target === "") continue;
    out.push({
      "@type": "Relationship",
      relationshipType: type,
      target: { "@id": `${MIF_ID_PREFIX}${target}` },
    });
  }
  return out;
}

/** Entities listed under `## Entities` as `@[[Name|Type]]`, one reference per distinct id. */
export function bodyEntities(body: string): JsonObject[] {
  const out: JsonObject[] = [];
  const seen = new Set<string>();
  for (const item of sectionItems(proseLines(body), "entities")) {
    for (const match of item.matchAll(/@\[\[([^\]|]+)(?:\|([^\]]+))?\]\]/g)) {
      const name = (match[1] ?? "").trim();
      const rawType = match[2]?.trim();
      const standard = ENTITY_TYPES.find((t) => t.toLowerCase() === rawType?.toLowerCase());
      const custom = rawType && !standard ? slug(rawType).replace(/^[^a-z]+/, "") : undefined;
      const entityType = standard ?? (custom || undefined);
      const nameSlug = slug(name);
      if (nameSlug === "") continue;
      const id = `${MIF_ENTITY_PREFIX}${(entityType ?? "concept").toLowerCase()}:${nameSlug}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const ref: JsonObject = { "@type": "EntityReference", entity: { "@id": id }, name };
      if (entityType) ref.entityType = entityType;
      out.push(ref);
    }
  }
  return out;
}

/** Obsidian block references: a line ending in ` ^block-id` names its text. */
export function bodyBlocks(body: string): Record<string, string> | undefined {
  let blocks: Record<string, string> | undefined;
  for (const line of proseLines(body)) {
    const match = /^(.*\S)\s+\^([A-Za-z0-9][A-Za-z0-9-]*)\s*$/.exec(line);
    if (!match?.[1] || !match[2]) continue;
    blocks ??= {};
    blocks[match[2]] = match[1].replace(LIST_ITEM, "$1").trim();
  }
  return blocks;
}
