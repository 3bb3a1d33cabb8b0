/**
 * Test harness: an SDK `McpServer` with `lro_extract` and the offload resources
 * registered, connected to an SDK `Client` over `InMemoryTransport`, on a fresh
 * private output directory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { OffloadConfig } from "../../src/config/offload-config.js";
import { LroEvents } from "../../src/events/events.js";
import { JqEngine, type JqEngineOptions } from "../../src/extract/jq-engine.js";
import {
  type LroExtractRegistration,
  registerLroExtract,
} from "../../src/mcp/host/lro-extract-tool.js";
import {
  type OffloadResourcesRegistration,
  registerOffloadResources,
} from "../../src/mcp/host/offload-resources.js";
import { Offloader } from "../../src/offload/offloader.js";

/** A running server + client pair. */
export interface ExtractHarness {
  dir: string;
  config: OffloadConfig;
  offloader: Offloader;
  client: Client;
  extract: LroExtractRegistration;
  resources: OffloadResourcesRegistration;
  /** Call the extraction tool; returns the result with its first text. */
  call(
    args: Record<string, unknown>,
  ): Promise<{ isError: boolean; text: string; result: CallToolResult }>;
  /** Move the clock by `ms`. */
  advance(ms: number): void;
  close(): Promise<void>;
}

/** Start a harness; `engine` options apply to its own jq engine. */
export async function startHarness(
  options: {
    engine?: JqEngineOptions;
    thresholdTokens?: number;
    pageBytes?: number;
    dirName?: string;
    /** Register the tool under this name (default `lro_extract`). */
    toolName?: string;
  } = {},
): Promise<ExtractHarness> {
  const root = mkdtempSync(join(tmpdir(), "atlatl-extract-test-"));
  const dir = join(root, options.dirName ?? "out");
  let offset = 0;
  const now = () => Date.now() + offset;
  const config: OffloadConfig = {
    enabled: true,
    thresholdTokens: options.thresholdTokens ?? 1600,
    ttlSeconds: 3600,
    outputDir: dir,
  };
  const events = new LroEvents({ sink: null });
  const offloader = new Offloader({ config, events, now });
  const server = new McpServer({ name: "extract-test", version: "0.0.0" });
  const engine = new JqEngine(options.engine ?? {});
  const toolName = options.toolName ?? "lro_extract";
  const extract = registerLroExtract(server, {
    offloader,
    engine,
    now,
    resourceLinks: true,
    toolName,
  });
  const resources = registerOffloadResources(server, {
    ResourceTemplate,
    config,
    now,
    events,
    cache: extract.extractor.cache,
    ...(options.pageBytes ? { pageBytes: options.pageBytes } : {}),
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "extract-test-client", version: "0.0.0" });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return {
    dir,
    config,
    offloader,
    client,
    extract,
    resources,
    async call(args) {
      const result = (await client.callTool({
        name: toolName,
        arguments: args,
      })) as CallToolResult;
      const first = result.content[0];
      return {
        isError: result.isError === true,
        text: first && first.type === "text" ? first.text : "",
        result,
      };
    },
    advance(ms) {
      offset += ms;
    },
    async close() {
      await client.close();
      await server.close();
      await engine.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Parse `jq -c` output text (one JSON value per line). */
export function parseJsonLines(text: string): unknown[] {
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as unknown);
}
