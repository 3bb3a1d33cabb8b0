import type { CallToolResult } from "@modelcontextprotocol/server";
import type { App } from "../../app/open-app.js";
import type { InitializeFacts } from "../../mcp/client-facts.js";
import { type AtlatlServer, createAtlatlServer } from "../../mcp/create-server.js";
import type { SharedExtraction } from "../../mcp/shared-extraction.js";
import type { TaskStore } from "../../mcp/tasks/task-store.js";
import type { Principal, Principals } from "./principals.js";

/**
 * The one place an HTTP MCP server is built: for a legacy (2025-11-25)
 * session or for one modern (2026-07-28) request, always over its principal's
 * offloader and the process's store, services, extraction engine and task
 * store. MCP Tasks belong to the principal, like offload files: one store for
 * the process (in memory, or shared by every instance with the shared offload
 * store), owned by principal id, so a task outlives the request or session
 * that made it and only its principal reads it.
 */
export class PrincipalServers {
  private alive = 0;

  constructor(
    private readonly deps: {
      app: Pick<App, "services">;
      principals: Pick<Principals, "get">;
      extraction: SharedExtraction;
      /** The process's tasks (`createTaskStore`). */
      tasks: TaskStore<CallToolResult>;
      /** `[server.http] proxy_inline_bytes`. */
      proxyInlineBytes: number;
      /** The number of servers built and not yet released, on every change (a gauge). */
      onLive?: (live: number) => void;
    },
  ) {}

  /**
   * A new atlatl MCP server serving `principalId`, and that principal;
   * `initialize` is a 2025-era session's opening request as sent.
   */
  create(
    principalId: string,
    initialize?: InitializeFacts,
  ): { principal: Principal; atlatl: AtlatlServer } {
    const { app, extraction, proxyInlineBytes } = this.deps;
    const principal = this.deps.principals.get(principalId);
    const atlatl = createAtlatlServer({
      services: app.services,
      tasks: { table: this.deps.tasks, owner: principal.id },
      offloader: principal.offloader,
      extraction,
      principalScoped: true,
      principal: principal.id,
      proxyInlineBytes,
      ...(initialize ? { initialize } : {}),
      onReleased: () => this.count(-1),
    });
    this.count(1);
    return { principal, atlatl };
  }

  private count(change: number): void {
    this.alive += change;
    this.deps.onLive?.(this.alive);
  }

  /** Cancel working tasks (shutdown). */
  async close(): Promise<void> {
    await this.deps.tasks.close();
  }
}
