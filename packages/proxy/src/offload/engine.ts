/**
 * The one seam between the proxy and `@atlatl/lro`: every engine call is here
 * and in `engine-sections.ts` (its sections half). The proxy sees
 * {@link ProxyEngine}: offload a `CallToolResult`, the `lro_extract` tool, the
 * offload files as resources.
 *
 * Built on today's `@atlatl/lro` API: results are laid out by `layout.ts`,
 * written with the library's JSONL writer and described with its multi-section
 * descriptor (`engine-sections.ts`); memory records of an atlatl upstream go
 * through `Offloader.offloadRecords` (the memory descriptor and its ten
 * recipes). `lro_extract` and the offload resources are the library's own
 * registrations on a private `McpServer`, reached through an in-memory client,
 * because today they mount only on `McpServer` while the proxy serves with the
 * low-level `Server`. When the library can offload any `CallToolResult` and
 * mount on a `Server`, these two files are the only ones to change.
 */

import { LroEvents } from "@atlatl/lro";
import {
  LRO_EXTRACT_TOOL_NAME,
  OFFLOAD_RESOURCE_PREFIX,
  offloadOutcomeToResult,
  registerLroExtract,
  registerOffloadResources,
} from "@atlatl/lro/mcp";
import { type OffloadConfig, Offloader } from "@atlatl/lro/node";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type ReadResourceResult,
  type Resource,
  ResourceListChangedNotificationSchema,
  type ResourceTemplate,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolPolicy } from "../config/proxy-config.js";
import { sweepBinaryFiles } from "./binary-files.js";
import { estimateResult, keptFields, sectionWriter, truncatedResult } from "./engine-sections.js";
import { memoryRecordsOf } from "./memory-results.js";

/** What the engine needs to know about one tool call. */
export interface ToolCallInfo {
  name: string;
  arguments?: Record<string, unknown> | undefined;
  policy: ToolPolicy;
}

/** Options of {@link createProxyEngine}. */
export interface ProxyEngineOptions {
  config: OffloadConfig;
  /** Name the extraction tool is listed under (`lro_extract` unless it clashes). */
  extractToolName: string;
  /** URI prefix of offload resources (`atlatl://offload/` unless it clashes). */
  resourcePrefix: string;
  /** The upstream is atlatl: its `{count, records}` results get the memory profile. */
  memoryProfile: boolean;
  events?: LroEvents;
  /** Called when offload files appear or expire (resources/list_changed). */
  onResourcesChanged?: () => void;
}

/** The engine as the proxy sees it. */
export interface ProxyEngine {
  readonly config: OffloadConfig;
  readonly extractToolName: string;
  /** `result` itself when it stays inline, else the descriptor result. Never throws. */
  offloadCallResult(result: CallToolResult, call: ToolCallInfo): Promise<CallToolResult>;
  /** The extraction tool's listing (JSON Schema). */
  extractTool(): Tool;
  callExtract(args: Record<string, unknown> | undefined): Promise<CallToolResult>;
  /** True for URIs of offload resources. */
  ownsUri(uri: string): boolean;
  listResources(): Promise<Resource[]>;
  resourceTemplate(): ResourceTemplate;
  readResource(uri: string): Promise<ReadResourceResult>;
  close(): Promise<void>;
}

/** Strip the SDK's `MCP error {code}: ` prefix, so a re-thrown error keeps its message. */
function rethrow(err: unknown): never {
  if (err instanceof McpError) {
    const prefix = `MCP error ${err.code}: `;
    const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
    throw Object.assign(new Error(message), { code: err.code, data: err.data });
  }
  throw err;
}

/** Create the engine: an offloader, the sweeper, `lro_extract` and the resources. */
export async function createProxyEngine(options: ProxyEngineOptions): Promise<ProxyEngine> {
  const events = options.events ?? new LroEvents();
  const base = new Offloader({ config: options.config, events });
  const config = base.config;
  const offloaders = new Map<number, Offloader>();
  /** One offloader per threshold in use (per-tool policies); all share the events. */
  const offloaderFor = (threshold: number): Offloader => {
    let o = offloaders.get(threshold);
    if (!o) {
      o = new Offloader({
        config: { ...config, enabled: true, thresholdTokens: threshold },
        events,
      });
      o.nativeExtraction = true;
      offloaders.set(threshold, o);
    }
    return o;
  };

  // The library's lro_extract and offload resources, on a private McpServer.
  const inner = new McpServer({ name: "atlatl-proxy-lro", version: "0.1.0" });
  const extract = registerLroExtract(inner, { offloader: base });
  const resources = registerOffloadResources(inner, { config, events });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const local = new Client({ name: "atlatl-proxy", version: "0.1.0" });
  await inner.connect(serverSide);
  await local.connect(clientSide);
  local.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    options.onResourcesChanged?.();
  });
  const listed = await local.listTools();
  const innerTool = listed.tools.find((t) => t.name === LRO_EXTRACT_TOOL_NAME) as Tool;
  const innerTemplates = await local.listResourceTemplates();

  const sweeper = base.startSweeper();
  const sweepBinaries = () => {
    void sweepBinaryFiles(config.outputDir, config.ttlSeconds);
  };
  sweepBinaries();
  const binarySweep = setInterval(sweepBinaries, 60 * 60 * 1000);
  binarySweep.unref();

  const renameTool = (s: string) =>
    options.extractToolName === LRO_EXTRACT_TOOL_NAME
      ? s
      : s.replaceAll(LRO_EXTRACT_TOOL_NAME, options.extractToolName);
  const toPublic = (uri: string) =>
    uri.startsWith(OFFLOAD_RESOURCE_PREFIX)
      ? options.resourcePrefix + uri.slice(OFFLOAD_RESOURCE_PREFIX.length)
      : uri;
  const toPrivate = (uri: string) =>
    OFFLOAD_RESOURCE_PREFIX + uri.slice(options.resourcePrefix.length);

  const memoryOffload = async (
    result: CallToolResult,
    call: ToolCallInfo,
    threshold: number,
  ): Promise<CallToolResult | undefined> => {
    const memory = memoryRecordsOf(result, call.name, call.arguments);
    if (!memory) return undefined;
    const outcome = await offloaderFor(threshold).offloadRecords({ ...memory, project: false });
    if (outcome.kind === "inline") return result;
    const out = offloadOutcomeToResult(
      outcome,
      { ...memory, inline: undefined },
      { thresholdTokens: threshold },
    );
    const first = out.content[0];
    if (first?.type === "text") first.text = renameTool(first.text);
    return { ...keptFields(result), content: out.content };
  };

  const sections = sectionWriter({ config, events, extractToolName: options.extractToolName });

  return {
    config,
    extractToolName: options.extractToolName,

    async offloadCallResult(result, call) {
      const { policy } = call;
      if (result.isError === true || policy.mode === "never" || !config.enabled) return result;
      const threshold =
        policy.mode === "always" ? 0 : (policy.thresholdTokens ?? config.thresholdTokens);
      const tokens = await estimateResult(result, threshold);
      if (tokens <= threshold) return result;
      try {
        if (options.memoryProfile) {
          const done = await memoryOffload(result, call, threshold);
          if (done) return done;
        }
        return await sections.offload(result, call, tokens);
      } catch (err) {
        const code =
          (err as { cause?: { code?: string }; code?: string })?.cause?.code ?? "WRITE_FAILED";
        events.emit({
          type: "OffloadWriteFailed",
          time: new Date().toISOString(),
          operation: call.name,
          path: null,
          code,
          error: (err as Error)?.message ?? String(err),
          count: 0,
          estimated_tokens: tokens,
        });
        return truncatedResult(result, threshold || config.thresholdTokens, code);
      }
    },

    extractTool() {
      return {
        ...innerTool,
        name: options.extractToolName,
        description: `${innerTool.description ?? ""}\nFiles this proxy wrote for other tools' results hold sections (records, text lines, content blocks): query them with a jq filter, e.g. query=".text" on a text file, or query="select(.name == $n)" with params={"n": "x"} on records; recipes 1-10 are for memory records.`,
      };
    },

    async callExtract(args) {
      const a = { ...(args ?? {}) };
      if (typeof a.file_path === "string" && a.file_path.startsWith(options.resourcePrefix)) {
        a.file_path = toPrivate(a.file_path);
      }
      try {
        const out = (await local.callTool({
          name: LRO_EXTRACT_TOOL_NAME,
          arguments: a,
        })) as CallToolResult;
        for (const block of out.content) {
          if (block.type === "resource_link") block.uri = toPublic(block.uri);
          if (block.type === "text") block.text = renameTool(block.text);
        }
        return out;
      } catch (err) {
        return rethrow(err);
      }
    },

    ownsUri(uri) {
      return uri.startsWith(options.resourcePrefix);
    },

    async listResources() {
      try {
        const { resources: list } = await local.listResources();
        return list.map((r) => ({ ...r, uri: toPublic(r.uri) }));
      } catch (err) {
        return rethrow(err);
      }
    },

    resourceTemplate() {
      const t = innerTemplates.resourceTemplates[0] as ResourceTemplate;
      return { ...t, uriTemplate: toPublic(t.uriTemplate) };
    },

    async readResource(uri) {
      if (!uri.startsWith(options.resourcePrefix)) {
        throw new McpError(ErrorCode.InvalidParams, `not an offload resource: ${uri}`);
      }
      try {
        const out = await local.readResource({ uri: toPrivate(uri) });
        for (const c of out.contents) {
          c.uri = toPublic(c.uri);
          const next = c._meta?.["atlatl/next_uri"];
          if (typeof next === "string" && c._meta) c._meta["atlatl/next_uri"] = toPublic(next);
        }
        return out;
      } catch (err) {
        return rethrow(err);
      }
    },

    async close() {
      clearInterval(binarySweep);
      sweeper.stop();
      resources.close();
      await extract.close();
      await local.close();
      await inner.close();
    },
  };
}
