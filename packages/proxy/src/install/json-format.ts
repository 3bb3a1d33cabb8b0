/**
 * JSON and JSON-with-comments config files, edited with Microsoft's jsonc-parser
 * (the parser VS Code uses): each change is a text edit of one key, so comments,
 * key order and the file's indentation stay as they were.
 */
import {
  applyEdits,
  type FormattingOptions,
  modify,
  type ParseError,
  parse,
  printParseErrorCode,
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

function setKey(text: string, path: (string | number)[], value: unknown): string {
  return applyEdits(text, modify(text, path, value, { formattingOptions: formattingOf(text) }));
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
