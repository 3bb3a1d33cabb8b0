/** A client config file's format: how its text is read, checked and edited in place. */
import type { EntryChanges, RawEntry } from "./dialects.js";

/** A path of keys to a table of servers, e.g. `["mcpServers"]` or `["projects", "/repo", "mcpServers"]`. */
export type MapPath = string[];

/** A config file's format. Every edit keeps the rest of the text (comments, order) as it was. */
export interface ConfigFormat {
  /** The parsed document; throws `CONFIG_INVALID`-style messages naming the file's problem. */
  parse(text: string, file: string): Record<string, unknown>;
  /** Set or remove keys of the entry `name` in the table at `map` (creating both when absent). */
  editEntry(text: string, map: MapPath, name: string, changes: EntryChanges): string;
  /** Remove the entry `name` from the table at `map`. */
  removeEntry(text: string, map: MapPath, name: string): string;
  /** The text of an empty document, for a file that does not exist yet. */
  empty: string;
}

/** The table at `path` of a parsed document, or undefined. */
export function tableAt(
  doc: Record<string, unknown>,
  path: MapPath,
): Record<string, RawEntry> | undefined {
  let node: unknown = doc;
  for (const key of path) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node !== null && typeof node === "object" && !Array.isArray(node)
    ? (node as Record<string, RawEntry>)
    : undefined;
}
