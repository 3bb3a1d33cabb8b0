/**
 * Who a client is, as its raw messages say: on 2026-07-28 each request's
 * `_meta` envelope carries the client's capabilities and info; on 2025-11-25
 * the connection's `initialize` does. Read here once for whoever holds the raw
 * messages (the proxy's opening gate, the server's stdio gate and `/mcp`
 * endpoint), where every key the client sent is still there (the SDK keeps no
 * unknown key of `clientInfo`, such as the LRO specification's `proxy`).
 */
import { REQUEST_CAPABILITIES_META, REQUEST_CLIENT_INFO_META } from "./envelope.js";
import { claimedRevision, isRequest, type RawMessage } from "./modern-requests.js";

/** What a client said of itself, and in which protocol generation. */
export interface ClientFacts {
  /** `modern`: a 2026-07-28 request's envelope; `legacy`: a 2025-era `initialize`. */
  era: "modern" | "legacy";
  capabilities: Record<string, unknown> | undefined;
  /** As sent, every key kept. */
  clientInfo: Record<string, unknown> | undefined;
}

const objectOr = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** The client capabilities and info a 2026-07-28 `_meta` envelope carries. */
export function envelopeFacts(
  envelope: Record<string, unknown> | undefined,
): Pick<ClientFacts, "capabilities" | "clientInfo"> {
  return {
    capabilities: objectOr(envelope?.[REQUEST_CAPABILITIES_META]),
    clientInfo: objectOr(envelope?.[REQUEST_CLIENT_INFO_META]),
  };
}

/**
 * The facts `message` states: a request claiming a revision in its envelope
 * states them there, a 2025-era `initialize` in its params; anything else
 * (a notification, a 2025-era request after `initialize`) states none.
 */
export function clientFacts(message: RawMessage): ClientFacts | undefined {
  if (!isRequest(message)) return undefined;
  if (typeof claimedRevision(message) === "string")
    return { era: "modern", ...envelopeFacts(objectOr(message.params?._meta)) };
  if (message.method !== "initialize") return undefined;
  return {
    era: "legacy",
    capabilities: objectOr(message.params?.capabilities),
    clientInfo: objectOr(message.params?.clientInfo),
  };
}
