/**
 * A transport wrapper that holds the client's messages until the proxy is
 * ready to serve. The proxy must see the client's opening message first: it
 * connects the upstream with the client's capabilities and identity (so
 * sampling, elicitation and roots reach the upstream) and serves with the
 * upstream's `serverInfo`, instructions and capabilities. A 2025 client opens
 * with `initialize`; a 2026-07-28 client with a request (usually
 * `server/discover`) whose `_meta` envelope carries the same facts. After a
 * 2026-07-28 opening, each message is checked as the SDK's stdio entry does
 * not (`request-checks.ts`): a refused request is answered here.
 */
import { clientFacts, rawMessage } from "@atlatl/lro/node";
import type {
  ClientCapabilities,
  Implementation,
  JSONRPCMessage,
  JSONRPCRequest,
  MessageExtraInfo,
  ProtocolEra,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/server";
import { checkModernMessage } from "./request-checks.js";

/** Who the client is, from its opening message. */
export interface OpeningFacts {
  /** The request that opened the session (`initialize`, or the first enveloped request). */
  opening: JSONRPCRequest;
  era: ProtocolEra;
  capabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
}

/** The facts of `message` when it opens a session, else undefined. */
function openingFacts(message: JSONRPCMessage): OpeningFacts | undefined {
  const raw = rawMessage(message);
  const facts = raw && clientFacts(raw);
  if (!facts) return undefined;
  return {
    opening: message as JSONRPCRequest,
    era: facts.era,
    capabilities: (facts.capabilities ?? {}) as ClientCapabilities,
    clientInfo: facts.clientInfo as Implementation | undefined,
  };
}

export class OpeningGate implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly held: [JSONRPCMessage, MessageExtraInfo | undefined][] = [];
  private open = false;
  private closed = false;
  /** The message that opened the session, and whether it opened a 2026-07-28 one. */
  private opening: JSONRPCMessage | undefined;
  private modern = false;
  private readonly closedWaiters: (() => void)[] = [];

  constructor(private readonly inner: Transport) {}

  /** Start the inner transport; resolves with the client's facts, or undefined if it closed first. */
  waitForOpening(): Promise<OpeningFacts | undefined> {
    return new Promise((resolve, reject) => {
      this.inner.onmessage = (message, extra) => {
        if (this.open) {
          this.deliver(message, extra);
          return;
        }
        this.held.push([message, extra]);
        const facts = this.opening ? undefined : openingFacts(message);
        if (facts) {
          this.opening = message;
          this.modern = facts.era === "modern";
          resolve(facts);
        }
      };
      this.inner.onclose = () => {
        this.closed = true;
        for (const w of this.closedWaiters.splice(0)) w();
        if (this.open) this.onclose?.();
        else resolve(undefined);
      };
      this.inner.onerror = (error) => this.onerror?.(error);
      this.inner.start().catch(reject);
    });
  }

  /** Resolves once the client side has closed. */
  whenClosed(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => this.closedWaiters.push(resolve));
  }

  /** Called by whoever serves the client (`serveStdio`): deliver what was held, then pass through. */
  async start(): Promise<void> {
    this.open = true;
    for (const [message, extra] of this.held.splice(0)) this.deliver(message, extra);
    if (this.closed) this.onclose?.();
  }

  /** `message` to whoever serves the client, unless a 2026-07-28 session refuses it here. */
  private deliver(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    // The opening message is the SDK's to check.
    const checked =
      this.modern && message !== this.opening ? checkModernMessage(message) : undefined;
    if (!checked) this.onmessage?.(message, extra);
    else if ("answer" in checked) void this.inner.send(checked.answer).catch(() => {});
    else this.onerror?.(new Error(`dropped a notification (${checked.drop})`));
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
