import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * An `McpServer` that remembers whether its client is an LRO proxy
 * (`clientInfo.proxy: true` in `initialize`, the specification's "Remote
 * Transport Proxy"). The SDK's schema strips unknown `clientInfo` keys, so the
 * flag is read from the raw message, on any transport (stdio or HTTP).
 */
export class ProxyAwareMcpServer extends McpServer {
  /** Ids of `tools/call` requests that asked to run as a task (`params.task`). */
  private readonly taskRequests = new Set<string | number>();

  /** True (once) when request `id` was task-augmented; plain calls get short-lived tasks. */
  takeTaskRequest(id: string | number): boolean {
    return this.taskRequests.delete(id);
  }

  /** A registered tool by name (to add capabilities such as task support after registration). */
  registeredTool(name: string): RegisteredTool | undefined {
    // The SDK keeps the registry private; reading it beats re-registering every tool.
    const registry = (this as unknown as { _registeredTools: Record<string, RegisteredTool> })
      ._registeredTools;
    return registry[name];
  }

  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    const inner = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (
        "method" in message &&
        "id" in message &&
        message.method === "tools/call" &&
        (message.params as { task?: unknown } | undefined)?.task !== undefined
      ) {
        this.taskRequests.add(message.id);
      }
      inner?.(message, extra);
    };
  }
}
