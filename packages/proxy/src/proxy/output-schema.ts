/**
 * A tool whose results the proxy may offload cannot keep its `outputSchema`:
 * the descriptor that replaces an offloaded result has no `structuredContent`
 * of that shape, and clients (the SDK's `Client.callTool` among them) reject a
 * result that lacks it. Such tools are listed without `outputSchema`; it moves
 * to `_meta["atlatl-proxy/outputSchema"]`, so nothing is lost. Tools whose
 * policy is `never` (or with offloading disabled) keep it.
 */
import type { Tool } from "@modelcontextprotocol/server";

/** Where a moved output schema is kept. */
export const OUTPUT_SCHEMA_META_KEY = "atlatl-proxy/outputSchema";

/** `tool` as listed through the proxy when its results may be offloaded. */
export function withoutOutputSchema(tool: Tool): Tool {
  if (tool.outputSchema === undefined) return tool;
  const { outputSchema, ...rest } = tool;
  return { ...rest, _meta: { ...(tool._meta ?? {}), [OUTPUT_SCHEMA_META_KEY]: outputSchema } };
}
