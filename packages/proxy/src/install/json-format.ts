/**
 * JSON and JSON-with-comments config files, edited with Microsoft's jsonc-parser
 * (the parser VS Code uses): each change is a text edit of one key, so comments,
 * key order and the file's indentation stay as they were.
 *
 * Only the edit itself is laid out, never its neighbours: in an object written
 * on one line (a minified file, a one-line entry) the new key or value stays on
 * that line, compact; elsewhere it is formatted in the file's indentation, with
 * the formatting edits applied in one pass, so an edit costs time linear in the
 * file. (`modify` with formatting options reformats the whole line of an
 * insertion, applying each formatting edit to a fresh copy of the text:
 * quadratic in a minified file, and every byte of it rewritten.)
 */
import {
  type Edit,
  type FormattingOptions,
  format,
  type JSONPath,
  modify,
  type ParseError,
  parse,
  printParseErrorCode,
  visit,
} from "jsonc-parser";
import type { ConfigFormat, MapPath } from "./config-format.js";

/** The file's own indentation and line ending, so inserted keys look like their neighbours. */
function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
  return {
    insertSpaces: !indent.startsWith("\t"),
    tabSize: indent.startsWith("\t") ? 1 : indent.length,
    eol: text.includes("\r\n") ? "\r\n" : "\n",
  };
}

/** `edits` (in order, not overlapping) applied to `text` in one pass. */
function applyInOrder(text: string, edits: readonly Edit[]): string {
  const parts: string[] = [];
  let at = 0;
  for (const e of [...edits].sort((a, b) => a.offset - b.offset)) {
    parts.push(text.slice(at, e.offset), e.content);
    at = e.offset + e.length;
  }
  parts.push(text.slice(at));
  return parts.join("");
}

/**
 * True when the edit lands in an object or array written on one line: the
 * nearest node on `path` that exists and has children (an empty `{}`, a new
 * file's, has no neighbours to look like). One scan, no syntax tree: the
 * containers off `path` are skipped.
 */
function editsOneLine(text: string, path: JSONPath): boolean {
  const open: { depth: number; onPath: boolean; line: number; children: boolean }[] = [];
  let nearest = { depth: -1, oneLine: false };
  const child = () => {
    const parent = open.at(-1);
    if (parent) parent.children = true;
  };
  const begin = (_o: number, _l: number, line: number, _c: number, at: () => JSONPath) => {
    child();
    const p = at();
    const onPath = p.length < path.length && p.every((key, i) => key === path[i]);
    open.push({ depth: p.length, onPath, line, children: false });
    return onPath;
  };
  const end = (_o: number, _l: number, line: number) => {
    const c = open.pop();
    if (c?.onPath && c.children && c.depth > nearest.depth) {
      nearest = { depth: c.depth, oneLine: c.line === line };
    }
  };
  visit(
    text,
    {
      onObjectBegin: begin,
      onArrayBegin: begin,
      onObjectEnd: end,
      onArrayEnd: end,
      onObjectProperty: child,
      onLiteralValue: child,
    },
    { allowTrailingComma: true, disallowComments: false },
  );
  return nearest.oneLine;
}

function setKey(text: string, path: JSONPath, value: unknown): string {
  const [edit] = modify(text, path, value, {});
  if (edit === undefined) return text;
  const out = applyInOrder(text, [edit]);
  if (editsOneLine(text, path)) return out;
  // A replaced value is laid out where it stands; an insertion or removal also
  // at its two edges (the line break and indentation before a key, a closing brace).
  let begin = edit.offset;
  let end = edit.offset + edit.content.length;
  if (edit.length === 0 || edit.content.length === 0) {
    begin -= begin >= 2 && out.startsWith("\r\n", begin - 2) ? 2 : Math.min(begin, 1);
    end += out.startsWith("\r\n", end) ? 2 : Math.min(out.length - end, 1);
  }
  const layout = format(
    out,
    { offset: begin, length: end - begin },
    { ...formattingOf(text), keepLines: false },
  );
  return applyInOrder(out, layout);
}

/** A JSON format; `comments` when the client reads comments and trailing commas (JSONC). */
export function jsonFormat(comments: boolean): ConfigFormat {
  return {
    empty: "{}\n",
    parse(text, file) {
      if (!comments) {
        try {
          return JSON.parse(text) as Record<string, unknown>;
        } catch (err) {
          throw new Error(`${file}: not valid JSON (${(err as Error).message})`);
        }
      }
      const errors: ParseError[] = [];
      const doc = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
      const first = errors[0];
      if (first) {
        throw new Error(
          `${file}: not valid JSON with comments (${printParseErrorCode(first.error)} at offset ${first.offset})`,
        );
      }
      if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
        throw new Error(`${file}: expected a JSON object at the top`);
      }
      return doc as Record<string, unknown>;
    },
    editEntry(text, map: MapPath, name, changes) {
      let out = text;
      for (const [key, value] of Object.entries(changes))
        out = setKey(out, [...map, name, key], value);
      return out;
    },
    removeEntry(text, map, name) {
      return setKey(text, [...map, name], undefined);
    },
  };
}
