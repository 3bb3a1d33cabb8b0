/**
 * MIF Markdown (`.memory.md`): YAML front matter + Markdown body → MIF JSON-LD document.
 *
 * The front matter uses MIF Markdown's snake_case keys (`type`, `valid_from`,
 * `trust_level`, citation `type`/`role`); known keys are renamed to their JSON-LD
 * names and every other key is kept verbatim, so the document then goes through the
 * same schema validation and mapping as a `.json` file. Pointers of schema violations
 * are translated back to the front-matter keys the user wrote (`/type`, not `/memoryType`).
 */
import { parseDocument } from "yaml";
import { MEMORY_STATUSES } from "../model/memory.js";
import { isObject, type JsonObject, pointerSegment } from "./json-utils.js";
import { MIF_CONTEXT_URL, MIF_ID_PREFIX, STATUS_EXTENSION_KEY } from "./keys.js";
import { bodyBlocks, bodyEntities, bodyRelationships } from "./markdown-body.js";

type MarkdownParse =
  | { kind: "none" }
  | { kind: "error"; line: number; message: string }
  | { kind: "document"; doc: JsonObject; toSourcePointer: (pointer: string) => string };

const TOP_RENAMES: Record<string, string> = {
  id: "@id",
  type: "memoryType",
  memory_type: "memoryType",
  compressed_at: "compressedAt",
};
const TEMPORAL_RENAMES: Record<string, string> = {
  valid_from: "validFrom",
  valid_until: "validUntil",
  recorded_at: "recordedAt",
  access_count: "accessCount",
  last_accessed: "lastAccessed",
};
const DECAY_RENAMES: Record<string, string> = {
  half_life: "halfLife",
  current_strength: "currentStrength",
};
const PROVENANCE_RENAMES: Record<string, string> = {
  source_type: "sourceType",
  trust_level: "trustLevel",
};
const EMBEDDING_RENAMES: Record<string, string> = {
  model_version: "modelVersion",
  source_text: "sourceText",
  vector_uri: "vectorUri",
};
const CITATION_RENAMES: Record<string, string> = {
  type: "citationType",
  role: "citationRole",
  citation_type: "citationType",
  citation_role: "citationRole",
};

/** Where a front-matter key ends up in the MIF document, for translating pointers back. */
type PointerMap = Map<string, string>;

function rename(
  obj: JsonObject,
  renames: Record<string, string>,
  mifBase: string,
  srcBase: string,
  map: PointerMap,
): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(obj)) {
    const target = renames[key] ?? key;
    // A key already given under its JSON-LD name wins over the snake_case alias.
    if (target !== key && target in obj) {
      out[key] = value;
      continue;
    }
    out[target] = value;
    if (target !== key)
      map.set(`${mifBase}/${pointerSegment(target)}`, `${srcBase}/${pointerSegment(key)}`);
  }
  return out;
}

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*\r?$/m;

/** Split a Markdown file into its YAML front matter and body. */
function splitFrontMatter(
  text: string,
): { yaml: string; body: string; closed: boolean } | undefined {
  const open = FRONT_MATTER.exec(text);
  if (!open) return undefined;
  const rest = text.slice(open[0].length);
  const close = CLOSING.exec(rest);
  if (!close) return { yaml: rest, body: "", closed: false };
  return {
    yaml: rest.slice(0, close.index),
    body: rest.slice(close.index + close[0].length),
    closed: true,
  };
}

function toStringList(value: unknown): unknown {
  // Obsidian accepts `tags: a, b` and `aliases: x`; MIF wants arrays of strings.
  if (typeof value === "string") return value.split(/[,\s]+/).filter((s) => s !== "");
  return value;
}

/** Parse a MIF Markdown file. `none` when it has no front matter (not a memory file). */
export function parseMemoryMarkdown(text: string): MarkdownParse {
  const parts = splitFrontMatter(text);
  if (!parts) return { kind: "none" };
  if (!parts.closed) {
    return { kind: "error", line: 1, message: "front matter is not closed by a `---` line" };
  }
  const yaml = parseDocument(parts.yaml);
  const firstError = yaml.errors[0];
  if (firstError) {
    const line = (firstError.linePos?.[0]?.line ?? 1) + 1; // + the opening `---`
    return {
      kind: "error",
      line,
      message: `invalid YAML front matter: ${firstError.message.split("\n")[0]}`,
    };
  }
  const front: unknown = yaml.toJS();
  if (!isObject(front)) {
    return { kind: "error", line: 2, message: "front matter must be a YAML mapping of keys" };
  }

  const map: PointerMap = new Map([
    ["/@id", "/id"],
    ["/memoryType", "/type"],
  ]);
  const doc = rename(front, TOP_RENAMES, "", "", map);
  if (typeof doc["@id"] === "number") doc["@id"] = String(doc["@id"]);
  if (typeof doc["@id"] === "string" && !doc["@id"].startsWith(MIF_ID_PREFIX)) {
    doc["@id"] = `${MIF_ID_PREFIX}${doc["@id"]}`;
  }
  doc["@context"] ??= MIF_CONTEXT_URL;
  doc["@type"] ??= "Memory";
  if ("tags" in doc) doc.tags = toStringList(doc.tags);
  if ("aliases" in doc) doc.aliases = toStringList(doc.aliases);

  // `status` is atlatl's own field; only a valid one is taken, anything else is kept as data.
  if (MEMORY_STATUSES.includes(doc.status as (typeof MEMORY_STATUSES)[number])) {
    const extensions = isObject(doc.extensions) ? doc.extensions : {};
    doc.extensions = { ...extensions, [STATUS_EXTENSION_KEY]: doc.status };
    delete doc.status;
  }
  if (isObject(doc.temporal)) {
    const temporal = rename(doc.temporal, TEMPORAL_RENAMES, "/temporal", "/temporal", map);
    if (isObject(temporal.decay)) {
      temporal.decay = rename(
        temporal.decay,
        DECAY_RENAMES,
        "/temporal/decay",
        "/temporal/decay",
        map,
      );
    }
    doc.temporal = temporal;
  }
  if (isObject(doc.provenance)) {
    doc.provenance = rename(doc.provenance, PROVENANCE_RENAMES, "/provenance", "/provenance", map);
  }
  if (isObject(doc.embedding)) {
    doc.embedding = rename(doc.embedding, EMBEDDING_RENAMES, "/embedding", "/embedding", map);
  }
  if (Array.isArray(doc.citations)) {
    doc.citations = doc.citations.map((c: unknown, i) => {
      if (!isObject(c)) return c;
      const citation = rename(c, CITATION_RENAMES, `/citations/${i}`, `/citations/${i}`, map);
      citation["@type"] ??= "Citation";
      return citation;
    });
  }

  // The body is the content: kept verbatim except for the blank lines that separate it
  // from the front matter and trailing whitespace.
  const content = parts.body.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd();
  doc.content = content;
  if (!("relationships" in doc)) {
    const relationships = bodyRelationships(content);
    if (relationships.length > 0) doc.relationships = relationships;
  }
  if (!("entities" in doc)) {
    const entities = bodyEntities(content);
    if (entities.length > 0) doc.entities = entities;
  }
  if (!("blocks" in doc)) {
    const blocks = bodyBlocks(content);
    if (blocks) doc.blocks = blocks;
  }

  const toSourcePointer = (pointer: string): string => {
    if (pointer === "/content") return "/content";
    let best = "";
    for (const mifPointer of map.keys()) {
      if (
        (pointer === mifPointer || pointer.startsWith(`${mifPointer}/`)) &&
        mifPointer.length > best.length
      ) {
        best = mifPointer;
      }
    }
    return best ? `${map.get(best)}${pointer.slice(best.length)}` : pointer;
  };
  return { kind: "document", doc, toSourcePointer };
}
