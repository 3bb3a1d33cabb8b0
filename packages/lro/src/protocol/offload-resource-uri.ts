import { basename } from "node:path";
import type { ResourceLink } from "./mcp-types.js";

/** URI scheme prefix under which live offload files are exposed as MCP resources. */
export const OFFLOAD_RESOURCE_PREFIX = "atlatl://offload/";

/** MIME type of offload files. */
export const OFFLOAD_MIME_TYPE = "application/x-ndjson";

/** Prefix of the `_meta` keys the MCP helpers add (`atlatl/engine`, `atlatl/next_uri`). */
export const OFFLOAD_META_PREFIX = "atlatl/";

/** Names an embedder may choose for what the MCP helpers expose (defaults: atlatl's). */
export interface McpNames {
  /** Resource URI prefix of offload files (default `atlatl://offload/`). */
  resourcePrefix: string;
  /** Prefix of `_meta` keys (default `atlatl/`). */
  metaPrefix: string;
}

/** atlatl's names. */
export const DEFAULT_MCP_NAMES: Readonly<McpNames> = {
  resourcePrefix: OFFLOAD_RESOURCE_PREFIX,
  metaPrefix: OFFLOAD_META_PREFIX,
};

/** The names in effect: `names` over the defaults. */
export function mcpNames(names: Partial<McpNames> | undefined): McpNames {
  return { ...DEFAULT_MCP_NAMES, ...names };
}

/** The resource URI naming an offload file (by its file name). */
export function offloadResourceUri(
  filePath: string,
  prefix: string = OFFLOAD_RESOURCE_PREFIX,
): string {
  return `${prefix}${encodeURIComponent(basename(filePath))}`;
}

/** The `resource_link` to an offload file: its resource URI under `prefix`, its name and `description`. */
export function offloadResourceLink(
  filePath: string,
  prefix: string,
  description: string,
): ResourceLink {
  return {
    type: "resource_link",
    uri: offloadResourceUri(filePath, prefix),
    name: basename(filePath),
    mimeType: OFFLOAD_MIME_TYPE,
    description,
  };
}
