/**
 * A transport wrapper that holds the client's messages until the proxy is
 * ready to serve. The proxy must see the client's opening message first: it
 * connects the upstream with the client's capabilities and identity (so
 * sampling, elicitation and roots reach the upstream) and serves with the
 * upstream's `serverInfo`, instructions and capabilities. A 2025 client opens
 * with `initialize`; a 2026-07-28 client with a request (usually
 * `server/discover`) whose `_meta` envelope carries the same facts.
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
  private readonly closedWaiters: (() => void)[] = [];

  constructor(private readonly inner: Transport) {}

  /** Start the inner transport; resolves with the client's facts, or undefined if it closed first. */
  waitForOpening(): Promise<ClientFacts | undefined> {
    return new Promise((resolve, reject) => {
      this.inner.onmessage = (message, extra) => {
        if (this.open) return this.onmessage?.(message, extra);
        this.held.push([message, extra]);
        const facts = clientFacts(message);
        if (facts) resolve(facts);
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
    for (const [message, extra] of this.held.splice(0)) this.onmessage?.(message, extra);
    if (this.closed) this.onclose?.();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
