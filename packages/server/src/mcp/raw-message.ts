/**
 * A 2025-11-25 `initialize`'s `clientInfo` as sent, read from the client's raw
 * message where atlatl's transport layer holds it before the SDK does (stdio:
 * `cli/request-gate.ts`; HTTP: the parsed `/mcp` body): the SDK 2.x server
 * validates it against its `Implementation` schema and drops unknown keys, so
 * the LRO specification's `clientInfo.proxy: true` is read here. The raw
 * message reader and the per-request checks of 2026-07-28 are
 * `@atlatl/lro/node`'s (`rawMessage`, `modernMessageRefusal`).
 */
import { claimedRevision, type RawMessage } from "@atlatl/lro/node";
import { CLIENT_INFO_META_KEY } from "@modelcontextprotocol/server";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The `clientInfo` of a 2025-era `initialize` (no envelope claim), every key kept. */
export function initializeClientInfo(message: RawMessage): Record<string, unknown> | undefined {
  if (message.method !== "initialize" || claimedRevision(message) !== undefined) return undefined;
  const info = message.params?.clientInfo;
  return isObject(info) ? info : undefined;
}

/**
 * The `clientInfo.name` a connection's opening message gives: a 2025
 * `initialize`'s, or a 2026-07-28 request's envelope's (Claude Code 2.1.328
 * opens with `server/discover`).
 */
export function openingClientName(message: RawMessage): string | undefined {
  const meta = message.params?._meta;
  const info =
    initializeClientInfo(message) ?? (isObject(meta) ? meta[CLIENT_INFO_META_KEY] : undefined);
  const name = isObject(info) ? info.name : undefined;
  return typeof name === "string" ? name : undefined;
}
