/**
 * The transports `atlatl serve` speaks MCP over, each as a way to start a real
 * server process on a backend and connect the SDK's real `Client`: stdio
 * (`atlatl serve`) and Streamable HTTP (`atlatl serve --http`, one session).
 * The MCP end-to-end suite runs once per transport and backend.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { TestBackend } from "../backends/backends.js";
import { startServer } from "../e2e/spawn-server.js";
import { startHttpServer } from "../http/spawn-http.js";

/** A running server and the client connected to it. */
export interface McpServerUnderTest {
  client: Client;
  /** Where its offload files go (over HTTP, each session has a directory in it). */
  outputDir: string;
  stderr(): string;
  close(): Promise<void>;
}

export interface McpTransport {
  name: "stdio" | "Streamable HTTP";
  /** What the server logs on stderr once it serves. */
  banner: RegExp;
  start(backend: TestBackend): Promise<McpServerUnderTest>;
}

export const TRANSPORTS: readonly McpTransport[] = [
  {
    name: "stdio",
    banner: /serving MCP on stdio/,
    start: (backend) => startServer({ backend }),
  },
  {
    name: "Streamable HTTP",
    banner: /listening on http:\/\/127\.0\.0\.1:\d+\/mcp/,
    async start(backend) {
      const dir = mkdtempSync(join(tmpdir(), "atlatl-mcp-http-"));
      const store = await backend.serverConfig(dir);
      const server = await startHttpServer({ store });
      try {
        const client = await server.connect();
        return {
          client,
          outputDir: server.outputDir,
          stderr: server.stderr,
          async close() {
            await server.stop();
            await store.cleanup();
            rmSync(dir, { recursive: true, force: true });
          },
        };
      } catch (err) {
        await server.stop();
        await store.cleanup();
        throw err;
      }
    },
  },
];
