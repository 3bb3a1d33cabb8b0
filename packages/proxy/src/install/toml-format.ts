/**
 * TOML config files (Codex's `config.toml`), edited with @decimalturn/toml-patch:
 * it patches the document's syntax tree, so comments, blank lines and the order
 * of tables and keys outside the changed entry stay as they were. (smol-toml,
 * which the server uses to read its own config, drops comments on write.)
 */
import { parse, patch, stringify } from "@decimalturn/toml-patch";
import { type ConfigFormat, type MapPath, tableAt } from "./config-format.js";
import type { EntryChanges } from "./dialects.js";

type Table = Record<string, unknown>;

function tableFor(doc: Table, path: readonly string[]): Table {
  let node = doc;
  for (const key of path) {
    const next = node[key];
    if (next === null || typeof next !== "object" || Array.isArray(next)) node[key] = {};
    node = node[key] as Table;
  }
  return node;
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/**
 * A new entry as its own `[a.b]` table at the end, the way the clients' docs
 * write servers (toml-patch would add an inline `a.b = {...}` to the root table).
 */
function appendTable(text: string, path: readonly string[], changes: EntryChanges): string {
  const header = path.map((k) => (BARE_KEY.test(k) ? k : JSON.stringify(k))).join(".");
  const body = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  // In the file's own line ending: a CRLF file stays CRLF throughout.
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const sep =
    text === "" ? "" : text.endsWith(eol + eol) ? "" : text.endsWith(eol) ? eol : eol + eol;
  const table = `[${header}]\n${stringify(body)}`.replace(/\r?\n/g, eol);
  return `${text}${sep}${table}`;
}

export const tomlFormat: ConfigFormat = {
  empty: "",
  parse(text, file) {
    try {
      return parse(text) as Table;
    } catch (err) {
      throw new Error(`${file}: not valid TOML (${(err as Error).message.split("\n")[0]})`);
    }
  },
  editEntry(text, map: MapPath, name, changes) {
    const doc = parse(text) as Table;
    if (tableAt(doc, [...map, name]) === undefined)
      return appendTable(text, [...map, name], changes);
    const entry = tableFor(doc, [...map, name]);
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) delete entry[key];
      else entry[key] = value;
    }
    return patch(text, doc);
  },
  removeEntry(text, map, name) {
    const doc = parse(text) as Table;
    delete tableFor(doc, map)[name];
    return patch(text, doc);
  },
};
