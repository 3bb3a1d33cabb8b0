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
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  type Implementation,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  PROTOCOL_VERSION_META_KEY,
  type ProtocolEra,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/server";
import { checkModernMessage } from "./request-checks.js";

/** Who the client is, from its opening message. */
export interface ClientFacts {
  /** The request that opened the session (`initialize`, or the first enveloped request). */
  opening: JSONRPCRequest;
  era: ProtocolEra;
  capabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
}

type Params = Record<string, unknown> | undefined;

/** The facts of `message` when it opens a session, else undefined. */
export function clientFacts(message: JSONRPCMessage): ClientFacts | undefined {
  if (!("method" in message) || !("id" in message)) return undefined;
  const request = message as JSONRPCRequest;
  const params = request.params as Params;
  const meta = params?._meta as Params;
  if (meta && typeof meta[PROTOCOL_VERSION_META_KEY] === "string") {
    return {
      opening: request,
      era: "modern",
      capabilities: (meta[CLIENT_CAPABILITIES_META_KEY] ?? {}) as ClientCapabilities,
      clientInfo: meta[CLIENT_INFO_META_KEY] as Implementation | undefined,
    };
  }
  if (request.method === "initialize") {
    return {
      opening: request,
      era: "legacy",
      capabilities: (params?.capabilities ?? {}) as ClientCapabilities,
      clientInfo: params?.clientInfo as Implementation | undefined,
    };
  }
  return undefined;
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
  waitForOpening(): Promise<ClientFacts | undefined> {
    return new Promise((resolve, reject) => {
      this.inner.onmessage = (message, extra) => {
        if (this.open) {
          this.deliver(message, extra);
          return;
        }
        this.held.push([message, extra]);
        const facts = this.opening ? undefined : clientFacts(message);
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
