/**
 * TOML config files (Codex's `config.toml`), edited with @decimalturn/toml-patch:
 * it patches the document's syntax tree, so comments, blank lines and the order
 * of tables and keys outside the changed entry stay as they were. (smol-toml,
 * which the server uses to read its own config, drops comments on write.)
 */
import { parse, patch } from "@decimalturn/toml-patch";
import type { ConfigFormat, MapPath } from "./config-format.js";

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
