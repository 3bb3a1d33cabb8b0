/**
 * The MCP 2026-07-28 per-request `_meta` envelope: the keys a request carries
 * its protocol revision, client capabilities and client info under. They are
 * the SDK's (`PROTOCOL_VERSION_META_KEY` and the rest), written here once
 * because `@atlatl/lro` does not load the SDK at run time.
 */

/** The `_meta` key carrying the protocol revision a request claims. */
export const REQUEST_PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";

/** The `_meta` key carrying a request's client capabilities. */
export const REQUEST_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities";

/** The `_meta` key carrying a request's client info. */
export const REQUEST_CLIENT_INFO_META = "io.modelcontextprotocol/clientInfo";
