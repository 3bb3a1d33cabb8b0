/**
 * A tool whose results the proxy may offload cannot keep its `outputSchema`
 * (see `@atlatl/lro/mcp`'s `withoutOutputSchema`): it is listed without it,
 * the schema moved to `_meta["atlatl-proxy/outputSchema"]`, so nothing is
 * lost. Tools whose policy is `never` (or with offloading disabled) keep it.
 */
import { withoutOutputSchema as moveOutputSchema, outputSchemaMetaKey } from "@atlatl/lro/mcp";
import type { Tool } from "@modelcontextprotocol/server";

const PROXY_NAMES = { metaPrefix: "atlatl-proxy/" };

/** Where a moved output schema is kept. */
export const OUTPUT_SCHEMA_META_KEY = outputSchemaMetaKey(PROXY_NAMES);

/** `tool` as listed through the proxy when its results may be offloaded. */
export function withoutOutputSchema(tool: Tool): Tool {
  return moveOutputSchema(tool, PROXY_NAMES);
}
