/**
 * A 2025-11-25 `initialize`'s `clientInfo` as sent, read from the client's raw
 * message where atlatl's transport layer holds it before the SDK does (stdio:
 * `cli/request-gate.ts`; HTTP: the parsed `/mcp` body): the SDK 2.x server
 * validates it against its `Implementation` schema and drops unknown keys, so
 * the LRO specification's `clientInfo.proxy: true` is read here. The raw
 * message reader, the client's facts and the per-request checks of 2026-07-28
 * are `@atlatl/lro/node`'s (`rawMessage`, `clientFacts`, `modernMessageRefusal`).
 */
import { clientFacts, type RawMessage } from "@atlatl/lro/node";

/** The `clientInfo` of a 2025-era `initialize` (no envelope claim), every key kept. */
export function initializeClientInfo(message: RawMessage): Record<string, unknown> | undefined {
  const facts = clientFacts(message);
  return facts?.era === "legacy" ? facts.clientInfo : undefined;
}

/**
 * The `clientInfo.name` a connection's opening message gives: a 2025
 * `initialize`'s, or a 2026-07-28 request's envelope's (Claude Code 2.1.328
 * opens with `server/discover`).
 */
export function openingClientName(message: RawMessage): string | undefined {
  const name = clientFacts(message)?.clientInfo?.name;
  return typeof name === "string" ? name : undefined;
}
