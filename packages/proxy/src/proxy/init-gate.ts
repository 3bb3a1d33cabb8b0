/**
 * A transport wrapper that holds the client's messages until the proxy's
 * `Server` is ready. The proxy must see the client's `initialize` first: it
 * connects the upstream with the client's capabilities (so sampling,
 * elicitation and roots reach the upstream) and answers with the upstream's
 * `serverInfo`, instructions and capabilities.
 */
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import type {
  JSONRPCMessage,
  JSONRPCRequest,
  MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";

export class InitGate implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly held: [JSONRPCMessage, MessageExtraInfo | undefined][] = [];
  private open = false;
  private closed = false;

  constructor(private readonly inner: Transport) {}

  /** Start the inner transport; resolves with the `initialize` request, or undefined if it closed first. */
  waitForInitialize(): Promise<JSONRPCRequest | undefined> {
    return new Promise((resolve, reject) => {
      this.inner.onmessage = (message, extra) => {
        if (this.open) return this.onmessage?.(message, extra);
        this.held.push([message, extra]);
        if ("method" in message && message.method === "initialize" && "id" in message) {
          resolve(message as JSONRPCRequest);
        }
      };
      this.inner.onclose = () => {
        this.closed = true;
        if (this.open) this.onclose?.();
        else resolve(undefined);
      };
      this.inner.onerror = (error) => this.onerror?.(error);
      this.inner.start().catch(reject);
    });
  }

  /** Called by `Server.connect`: deliver what was held, then pass through. */
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
