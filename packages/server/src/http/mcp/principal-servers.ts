import type { CallToolResult } from "@modelcontextprotocol/server";
import type { App } from "../../app/open-app.js";
import { type AtlatlServer, createAtlatlServer } from "../../mcp/create-server.js";
import type { SharedExtraction } from "../../mcp/shared-extraction.js";
import { TASK_MAX_TTL_MS, TaskTable } from "../../mcp/tasks/task-table.js";
import type { Principal, Principals } from "./principals.js";

/**
 * The one place an HTTP MCP server is built: for a legacy (2025-11-25)
 * session or for one modern (2026-07-28) request, always over its principal's
 * offloader and the process's store, services, extraction engine and task
 * table. MCP Tasks belong to the principal, like offload files: one table for
 * the process, owned by principal id, so a task outlives the request or
 * session that made it and only its principal reads it.
 */
export class PrincipalServers {
  private tasks: TaskTable<CallToolResult> | undefined;

  constructor(
    private readonly deps: {
      app: Pick<App, "services">;
      principals: Pick<Principals, "get">;
      extraction: SharedExtraction;
      /** `[server.http] proxy_inline_bytes`. */
      proxyInlineBytes: number;
    },
  ) {}

  /** A new atlatl MCP server serving `principalId`, and that principal. */
  create(principalId: string): { principal: Principal; atlatl: AtlatlServer } {
    const { app, extraction, proxyInlineBytes } = this.deps;
    const principal = this.deps.principals.get(principalId);
    // A task's result names an offload file: it is kept no longer than the file.
    this.tasks ??= new TaskTable<CallToolResult>({
      maxTtlMs: Math.min(TASK_MAX_TTL_MS, principal.offloader.config.ttlSeconds * 1000),
    });
    const atlatl = createAtlatlServer({
      services: app.services,
      tasks: { table: this.tasks, owner: principal.id },
      offloader: principal.offloader,
      extraction,
      principalScoped: true,
      principal: principal.id,
      proxyInlineBytes,
    });
    return { principal, atlatl };
  }

  /** Cancel working tasks (shutdown). */
  close(): void {
    this.tasks?.close();
  }
}
