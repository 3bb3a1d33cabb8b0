/**
 * What a memory gets for a field its input leaves out: one rule each, used by
 * capture (MCP, CLI) and by MIF/record import alike, so the same content gets the
 * same title and namespace whichever way it arrives.
 */

/** Longest derived title, in characters (an ellipsis marks a cut). */
export const DERIVED_TITLE_CHARS = 80;

/** Title of content that has no text at all. */
export const UNTITLED = "Untitled memory";

/**
 * The namespace a memory of `type` gets when none is given: `_{type}/general`.
 * Two segments like every MIF example (`_semantic/decisions`), so a type-root
 * prefix filter (`_semantic`) still finds it.
 */
export function defaultNamespace(type: string): string {
  return `_${type}/general`;
}

/** Markdown inline syntax removed, whitespace collapsed. */
function plainText(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links and images keep their text
    .replace(
      /\[\[([^\]|]*)(?:\|([^\]]*))?\]\]/g,
      (_, target: string, label?: string) => label ?? target,
    ) // wiki links keep their label, else their target
    .replace(/[*_`~]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

const HEADING = /^#{1,6}\s+\S/;
const RULE = /^(-{3,}|\*{3,}|_{3,})$/;

/**
 * A title for `content`: its first Markdown heading (what an author names a note
 * by), else its first non-blank line that is not a horizontal rule; list, quote
 * and heading marks and inline Markdown stripped; cut at {@link DERIVED_TITLE_CHARS}
 * on a word boundary when possible (titles fill light records and tables, so they
 * stay short).
 */
export function deriveTitle(content: string): string {
  const lines = content.split(/\r?\n/).map((l) => l.trim());
  const source =
    lines.find((l) => HEADING.test(l)) ?? lines.find((l) => l !== "" && !RULE.test(l)) ?? "";
  const text = plainText(
    source.replace(/^#{1,6}\s+/, "").replace(/^(?:(?:[-*+]|\d+[.)])\s+|>\s*)/, ""),
  );
  if (text === "") return UNTITLED;
  if (text.length <= DERIVED_TITLE_CHARS) return text;
  const cut = text.slice(0, DERIVED_TITLE_CHARS - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > DERIVED_TITLE_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
