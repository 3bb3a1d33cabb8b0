/**
 * The one seam between the proxy and `@atlatl/lro`: every engine call is here.
 * The proxy sees {@link ProxyEngine}: offload a `CallToolResult`, the
 * `lro_extract` tool, the offload files as resources.
 *
 * Built on today's `@atlatl/lro` API: results are laid out by `layout.ts` and
 * written with `Offloader.offloadSections` (multi-section descriptor, inferred
 * schemas, `force`); memory records of an atlatl upstream with
 * `Offloader.offloadRecords` (the memory descriptor and its ten recipes).
 * `lro_extract` and the offload resources are the library's own registrations
 * on a private `McpServer`, reached through an in-memory client, because today
 * they mount only on `McpServer` while the proxy serves with the low-level
 * `Server`. When the library can offload any `CallToolResult` and mount on a
 * `Server`, this file is the only one to change.
 */
import { estimateTokens, LroEvents, sanitizeOperation } from "@atlatl/lro";
import {
  LRO_EXTRACT_TOOL_NAME,
  OFFLOAD_RESOURCE_PREFIX,
  offloadOutcomeToResult,
  registerLroExtract,
  registerOffloadResources,
} from "@atlatl/lro/mcp";
import { ensureOutputDir, nodeOffloadFs, type OffloadConfig, Offloader } from "@atlatl/lro/node";
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
import { removeFiles, sweepBinaryFiles, writeBinaryParts } from "./binary-files.js";
import { layoutResult } from "./layout.js";
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

/** Estimated tokens of a whole result: chars / 4 decides alone when far above. */
async function estimateResult(json: string, threshold: number): Promise<number> {
  const byChars = Math.ceil(json.length / 4);
  return byChars > threshold ? byChars : estimateTokens(json);
}

function text(t: string): CallToolResult["content"][number] {
  return { type: "text", text: t };
}

/** Everything of `result` but what is offloaded (`content`, `structuredContent`). */
function keptFields(result: CallToolResult): Record<string, unknown> {
  const { content: _c, structuredContent: _s, ...rest } = result;
  return rest;
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

  const sectionsOffload = async (
    result: CallToolResult,
    call: ToolCallInfo,
    tokens: number,
  ): Promise<CallToolResult> => {
    const operation = sanitizeOperation(call.name);
    const layout = layoutResult(result, call.policy.inlineKeys);
    let binaries: string[] = [];
    if (layout.binaries.length > 0) {
      await ensureOutputDir(nodeOffloadFs, config.outputDir);
      binaries = await writeBinaryParts(config.outputDir, operation, layout.binaries, Date.now());
    }
    const outcome = await base.offloadSections({
      operation,
      sections: layout.sections,
      inline: { tool: call.name, estimated_tokens: tokens, ...layout.inline },
      force: true,
    });
    if (outcome.kind === "offloaded") {
      const d = outcome.response;
      d.guidance = guidanceFor(call.name, d.files, tokens, options.extractToolName, binaries);
      return { ...keptFields(result), content: [text(JSON.stringify(d))] };
    }
    await removeFiles(binaries);
    if (outcome.kind === "truncated") {
      const body = {
        truncated: true,
        warning: outcome.warning,
        sections: outcome.sections.map((s) => ({ key: s.key, total: s.total, items: s.items })),
      };
      return { ...keptFields(result), content: [text(JSON.stringify(body))] };
    }
    return result;
  };

  return {
    config,
    extractToolName: options.extractToolName,

    async offloadCallResult(result, call) {
      const { policy } = call;
      if (result.isError === true || policy.mode === "never" || !config.enabled) return result;
      const threshold =
        policy.mode === "always" ? 0 : (policy.thresholdTokens ?? config.thresholdTokens);
      const json = JSON.stringify(result);
      const tokens = await estimateResult(json, threshold);
      if (tokens <= threshold) return result;
      try {
        if (options.memoryProfile) {
          const done = await memoryOffload(result, call, threshold);
          if (done) return done;
        }
        return await sectionsOffload(result, call, tokens);
      } catch (err) {
        events.emit({
          type: "OffloadWriteFailed",
          time: new Date().toISOString(),
          operation: call.name,
          path: null,
          code: "WRITE_FAILED",
          error: (err as Error)?.message ?? String(err),
          count: 0,
          estimated_tokens: tokens,
        });
        return result;
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

/** Guidance of a sections descriptor: the extraction tool first, jq recipes for shells. */
function guidanceFor(
  tool: string,
  files: Record<string, string>,
  tokens: number,
  extractTool: string,
  binaries: readonly string[],
): string {
  const entries = Object.entries(files);
  const [firstKey, firstPath] = entries[0] ?? ["", ""];
  const example =
    firstKey === "text"
      ? `query="select(.text | test(\\"error\\"; \\"i\\")) | .text"`
      : firstKey === "records"
        ? 'query="keys", limit=1'
        : 'query=".", limit=10';
  return [
    `Result of ${tool} offloaded to JSONL (~${tokens} tokens; ${entries.length} section(s): ${entries.map(([k]) => k).join(", ")}).`,
    "Files:",
    ...entries.map(([k, p]) => `  - ${k}: ${p}`),
    ...(binaries.length > 0
      ? ["Binary content (not inlined):", ...binaries.map((b) => `  - ${b}`)]
      : []),
    "",
    `Use the \`${extractTool}\` tool to query a file, e.g. ${extractTool}(file_path="${firstPath}", ${example}),`,
    "or the jq_recipes above in a shell (replace PATTERN). Line 1 of each file is a header; data starts at line 2.",
  ].join("\n");
}
