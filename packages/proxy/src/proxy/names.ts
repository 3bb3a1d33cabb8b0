/**
 * Names the proxy adds beside the upstream's: the extraction tool and the URI
 * prefix of offload resources. When the upstream already uses one, ours gets
 * the prefix `atlatl_proxy_` (tool) or the scheme `atlatl-proxy` (resources),
 * so no upstream name is ever shadowed.
 */
import { LRO_EXTRACT_TOOL_NAME, OFFLOAD_RESOURCE_PREFIX } from "@atlatl/lro/mcp";

/** Prefix of our tool name when the upstream has a tool of the same name. */
export const TOOL_CLASH_PREFIX = "atlatl_proxy_";
/** Our resource URI prefix when the upstream's resources use `atlatl://offload/`. */
export const PROXY_RESOURCE_PREFIX = "atlatl-proxy://offload/";

/** The extraction tool's name given the upstream's tool names. */
export function extractToolName(upstreamTools: ReadonlySet<string>): string {
  let name = LRO_EXTRACT_TOOL_NAME;
  while (upstreamTools.has(name)) name = `${TOOL_CLASH_PREFIX}${name}`;
  return name;
}

/** The offload resource prefix given the upstream's resource URIs and templates. */
export function resourcePrefix(upstreamUris: Iterable<string>): string {
  for (const uri of upstreamUris) {
    if (uri.startsWith(OFFLOAD_RESOURCE_PREFIX)) return PROXY_RESOURCE_PREFIX;
  }
  return OFFLOAD_RESOURCE_PREFIX;
}
