import { basename } from "node:path";

/** URI scheme prefix under which live offload files are exposed as MCP resources. */
export const OFFLOAD_RESOURCE_PREFIX = "atlatl://offload/";

/** The resource URI naming an offload file (by its file name). */
export function offloadResourceUri(filePath: string): string {
  return `${OFFLOAD_RESOURCE_PREFIX}${encodeURIComponent(basename(filePath))}`;
}
