/** Title of a memory that has none: its first heading, else its first non-empty line. */

const MAX_TITLE = 120;

function stripInlineMarkdown(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links and images keep their text
    .replace(/\[\[([^\]|]*)(?:\|[^\]]*)?\]\]/g, "$1") // wiki links
    .replace(/[*_`~]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

export function deriveTitle(content: string): string {
  const lines = content.split(/\r?\n/);
  const heading = lines.find((line) => /^#{1,6}\s+\S/.test(line));
  const source =
    heading?.replace(/^#{1,6}\s+/, "") ??
    lines.find((line) => line.trim() !== "" && !/^(-{3,}|\*{3,}|_{3,})\s*$/.test(line.trim())) ??
    "";
  const text = stripInlineMarkdown(source.replace(/^\s*(?:[-*+]|\d+\.|>)\s+/, ""));
  if (text === "") return "Untitled memory";
  return text.length <= MAX_TITLE ? text : `${text.slice(0, MAX_TITLE - 1).trimEnd()}…`;
}
