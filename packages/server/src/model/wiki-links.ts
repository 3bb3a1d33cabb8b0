/**
 * `wiki_links`: the notes a memory's Markdown links to with `[[target]]`,
 * `[[target|label]]` or `![[embed]]` (the specification's enrichment field).
 * Derived from the content, so it can never disagree with it: nothing stores it,
 * MIF (which has no such property) carries it inside the content, and an imported
 * record's `wiki_links` is recomputed rather than trusted.
 */

const FENCE = /^(\s*)(`{3,}|~{3,})/;
/** `[[target]]`, `[[target|label]]`, `[[target#heading]]`; not `@[[entity]]`. */
const LINK = /(?<!@)\[\[([^\]|\n]+)(?:\|[^\]\n]*)?\]\]/g;

/** Distinct link targets of `content` in first-seen order, outside code. */
export function wikiLinks(content: string): string[] {
  if (!content.includes("[[")) return [];
  const seen = new Set<string>();
  let fence: string | undefined;
  for (const line of content.split(/\r?\n/)) {
    const marker = FENCE.exec(line)?.[2];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence !== undefined) continue;
    for (const match of line.replace(/`[^`]*`/g, "").matchAll(LINK)) {
      const target = match[1]?.trim();
      if (target) seen.add(target);
    }
  }
  return [...seen];
}
