/**
 * The negotiated whole set: how a server answers a client that offloads on its
 * own disk (an LRO proxy). The client declares {@link LRO_PROXY_CAPABILITY}
 * (an `experimental` and `extensions` client capability) or sends
 * `clientInfo.proxy: true` (which SDK 1.x's schema strips from `initialize`,
 * but the 2026-07-28 `_meta` envelope keeps); the server then
 * returns its usual inline page as `content` and, in `structuredContent`,
 * every match with everything a local descriptor needs (operation, query,
 * detail, profile, scores, total). The client judges the set against its own
 * threshold: above it, the whole set goes to its file; at or below it, the
 * page is passed on as the server wrote it. It parses no text and needs no
 * list of the server's tool names.
 *
 * Written ({@link withWholeSet}) and read ({@link readWholeSet}) here only.
 */

import { z } from "zod";
import { REQUEST_CAPABILITIES_META, REQUEST_CLIENT_INFO_META } from "../../protocol/envelope.js";
import type { AnyCallToolResult, CallToolResult } from "../../protocol/mcp-types.js";

/** The `experimental` client capability of a client that offloads locally. */
export const LRO_PROXY_CAPABILITY = "atlatl/proxy";

/** The `structuredContent` key holding the whole set. */
const WHOLE_SET_KEY = "lro_whole_set";

const WholeSetSchema = z.object({
  operation: z.string(),
  query: z.string().nullable(),
  detail: z.string().nullable(),
  /** A built-in profile's name (a profile object of the server's own cannot travel). */
  profile: z.string(),
  /** Every match (up to the server's `max_records`), already at `detail`. */
  records: z.array(z.looseObject({})),
  scores: z.array(z.number()).optional(),
  /** Matches in the set (more than `records` when the server capped it). */
  total: z.number().int().nonnegative(),
  /** The page is text of the tool's own (e.g. Markdown), not a records envelope. */
  text_inline: z.boolean(),
  /** Set when the server cut the records short of `total` for a bound of its own. */
  warning: z.string().optional(),
});

/** The whole set as the server sends it. */
export type WholeSet = z.infer<typeof WholeSetSchema>;

/**
 * True when the client offloads locally: its capabilities declare
 * {@link LRO_PROXY_CAPABILITY} under `experimental` (MCP 2025-11-25) or
 * `extensions` (MCP 2026-07-28), or its client info says `proxy: true`. The
 * one rule for the proxy signal, whichever way the facts arrived (`initialize`
 * or a request's `_meta` envelope); both arguments are read defensively, as
 * they come from the wire.
 */
export function offloadsLocally(capabilities: unknown, clientInfo?: unknown): boolean {
  return (
    declares(member(capabilities, "experimental")) ||
    declares(member(capabilities, "extensions")) ||
    member(clientInfo, "proxy") === true
  );
}

/** `value[key]` when `value` is an object, else undefined. */
function member(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

const declares = (group: unknown) => member(group, LRO_PROXY_CAPABILITY) !== undefined;

export { REQUEST_CAPABILITIES_META, REQUEST_CLIENT_INFO_META };

/**
 * True when one request's `_meta` envelope says its client offloads locally
 * ({@link offloadsLocally} of its client capabilities and client info): a
 * client that did not (or could not) say so at `initialize` offloads locally
 * for this request.
 */
export function requestOffloadsLocally(meta: unknown): boolean {
  return offloadsLocally(
    member(meta, REQUEST_CAPABILITIES_META),
    member(meta, REQUEST_CLIENT_INFO_META),
  );
}

/** What {@link declareOffloadsLocally} adds to capabilities. */
export type ProxyCapabilityGroups = {
  experimental: { [LRO_PROXY_CAPABILITY]: Record<string, never> };
  extensions: { [LRO_PROXY_CAPABILITY]: Record<string, never> };
};

/**
 * `capabilities` (any SDK line's `ClientCapabilities`) with
 * {@link LRO_PROXY_CAPABILITY} declared under both `experimental` (read by
 * 2025-11-25 servers) and `extensions` (the 2026-07-28 place): a client
 * declares it once for either generation.
 */
export function declareOffloadsLocally<C extends object>(
  capabilities: C,
): C & ProxyCapabilityGroups {
  const groups = capabilities as { experimental?: object; extensions?: object };
  return {
    ...capabilities,
    experimental: { ...groups.experimental, [LRO_PROXY_CAPABILITY]: {} },
    extensions: { ...groups.extensions, [LRO_PROXY_CAPABILITY]: {} },
  } as C & ProxyCapabilityGroups;
}

/** The server's page with the whole set beside it. */
export function withWholeSet(page: CallToolResult, set: WholeSet): CallToolResult {
  return { ...page, structuredContent: { [WHOLE_SET_KEY]: set } };
}

/** The whole set of `result` and its page (without the set), or undefined when it has none. */
export function readWholeSet(
  result: AnyCallToolResult,
): { set: WholeSet; page: CallToolResult } | undefined {
  const raw = (result.structuredContent as Record<string, unknown> | undefined)?.[WHOLE_SET_KEY];
  if (raw === undefined || result.isError) return undefined;
  const parsed = WholeSetSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const { structuredContent: _s, ...page } = result;
  return { set: parsed.data, page };
}
