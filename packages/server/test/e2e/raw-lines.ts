/**
 * Raw JSON-RPC lines to an MCP server process over stdio, answers matched by
 * id, every line the server wrote kept in order: the wire itself, without a
 * client's own handling in between. `modern` requests carry the 2026-07-28
 * envelope in `_meta` (no `initialize`); `legacy` ones are plain 2025-11-25
 * requests after `initialize()`.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";

/** One line the server wrote. */
export interface Line {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

export class Lines {
  private nextId = 1;
  private readonly waiting = new Map<number, (message: Line) => void>();
  /** Every line the server wrote, in order. */
  readonly seen: Line[] = [];

  constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly era: "modern" | "legacy",
  ) {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const message = JSON.parse(line) as Line;
      this.seen.push(message);
      if (message.id !== undefined) this.waiting.get(message.id)?.(message);
    });
  }

  /**
   * The 2025-11-25 handshake (`initialize`, then `notifications/initialized`),
   * with `clientInfo` added to the client info sent.
   */
  async initialize(clientInfo: Record<string, unknown> = {}): Promise<Line> {
    const answer = await this.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "raw-lines", version: "1.0.0", ...clientInfo },
    });
    this.child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
    );
    return answer;
  }

  /**
   * Send a request; its response. A modern one carries the envelope (with
   * `capabilities` as its client capabilities, claiming protocol `version`);
   * `meta` is added to `_meta`.
   */
  request(
    method: string,
    params: Record<string, unknown>,
    capabilities: Record<string, unknown> = {},
    meta: Record<string, unknown> = {},
    version = "2026-07-28",
  ): Promise<Line> {
    const id = this.nextId++;
    const envelope =
      this.era === "modern"
        ? {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": { name: "raw-lines", version: "1.0.0" },
          }
        : {};
    const _meta = { ...meta, ...envelope };
    const answered = new Promise<Line>((resolve) => this.waiting.set(id, resolve));
    const withMeta = Object.keys(_meta).length > 0 ? { ...params, _meta } : params;
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params: withMeta })}\n`);
    return answered;
  }
}
