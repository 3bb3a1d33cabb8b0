/**
 * Which MCP protocol generation the proxy speaks to its upstream:
 *
 * - `auto` (default): ask `server/discover` first and fall back to the 2025
 *   `initialize` handshake when the server gives no 2026 answer. The probe
 *   runs on the upstream connection itself; a server that exits on an
 *   unknown request before `initialize` needs `legacy`.
 * - `legacy`: the 2025-11-25 handshake only (no probe).
 * - `2026-07-28`: that revision only; connecting fails when the server does
 *   not offer it.
 */
import type { VersionNegotiationOptions } from "@modelcontextprotocol/client";

/** The 2026 revision the proxy can pin. */
export const MODERN_PROTOCOL = "2026-07-28";

/** The values of `proxy.upstream_protocol` / `--upstream-protocol`. */
export const UPSTREAM_PROTOCOLS = ["auto", "legacy", MODERN_PROTOCOL] as const;

export type UpstreamProtocol = (typeof UPSTREAM_PROTOCOLS)[number];

/** The default: probe, then fall back. */
export const DEFAULT_UPSTREAM_PROTOCOL: UpstreamProtocol = "auto";

/**
 * How long the `auto` probe waits for an answer before taking the upstream
 * for a 2025 server that ignores unknown requests (the SDK's default would be
 * the whole request timeout).
 */
const PROBE_TIMEOUT_MS = 10_000;

/** `protocol` as the SDK client's `versionNegotiation`. */
export function versionNegotiation(protocol: UpstreamProtocol): VersionNegotiationOptions {
  if (protocol === "legacy") return { mode: "legacy" };
  if (protocol === MODERN_PROTOCOL) return { mode: { pin: MODERN_PROTOCOL } };
  return { mode: "auto", probe: { timeoutMs: PROBE_TIMEOUT_MS } };
}

/** True for a valid value; `parse*` callers name the setting in their error. */
export function isUpstreamProtocol(value: unknown): value is UpstreamProtocol {
  return (UPSTREAM_PROTOCOLS as readonly unknown[]).includes(value);
}
