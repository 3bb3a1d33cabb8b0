/**
 * The one seam between the proxy and `@atlatl/lro`: every engine call is here
 * and in `engine-sections.ts` (its sections half). One `Offloader` does all
 * the writing (its write pipeline, ULIDs, attachments and sweeper); per-tool
 * thresholds are per-call options of it. Results are laid out by `@atlatl/lro`s `layoutResult`
 * (byte-exact JSON text, reassembly markers, `inline_keys`); memory records of
 * an atlatl upstream go through `Offloader.offloadRecords` with the memory
 * profile (its descriptor and ten recipes). `lro_extract` and the offload
 * resources are the library's own registrations, mounted on the proxy's
 * low-level `Server` with the upstream's tools and resources served beside them.
 */

import { LroEvents } from "@atlatl/lro";
import {
  estimateCallResultTokens,
  offloadOutcomeToResult,
  type ResourcesUpstream,
  registerLroExtract,
  registerOffloadResources,
  type ToolsUpstream,
} from "@atlatl/lro/mcp";
import { type OffloadConfig, Offloader } from "@atlatl/lro/node";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolPolicy } from "../config/proxy-config.js";
import {
  keptFields,
  offloadResultSections,
  SectionsOffloadFailed,
  truncatedResult,
} from "./engine-sections.js";
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
  /**
   * The client-facing low-level server: `lro_extract` and the offload resources
   * are mounted on it (it notifies `resources/list_changed` when files appear
   * or expire). Default: a server of the engine's own, unconnected (the
   * extraction tool is still reachable through `callExtract`).
   */
  server?: Server;
  /** The upstream's tools and resources, served beside ours. */
  upstream?: { tools?: ToolsUpstream; resources?: ResourcesUpstream };
}

/** The engine as the proxy sees it. */
export interface ProxyEngine {
  readonly config: OffloadConfig;
  readonly extractToolName: string;
  /** `result` itself when it stays inline, else the descriptor result. Never throws. */
  offloadCallResult(result: CallToolResult, call: ToolCallInfo): Promise<CallToolResult>;
  /** Run the extraction tool (as a `tools/call` of it would). */
  callExtract(args: Record<string, unknown> | undefined): Promise<CallToolResult>;
  /** True for URIs of offload resources. */
  ownsUri(uri: string): boolean;
  close(): Promise<void>;
}

/** Create the engine: one offloader and its sweeper, `lro_extract` and the resources on `server`. */
export async function createProxyEngine(options: ProxyEngineOptions): Promise<ProxyEngine> {
  const events = options.events ?? new LroEvents();
  const offloader = new Offloader({ config: options.config, events });
  const config = offloader.config;
  const names = { resourcePrefix: options.resourcePrefix };
  const server =
    options.server ?? new Server({ name: "atlatl-proxy", version: "0.1.0" }, { capabilities: {} });
  const extract = registerLroExtract(server, {
    offloader,
    names,
    toolName: options.extractToolName,
    ...(options.upstream?.tools ? { upstream: options.upstream.tools } : {}),
  });
  const resources = registerOffloadResources(server, {
    config,
    events,
    names,
    ...(options.upstream?.resources ? { upstream: options.upstream.resources } : {}),
  });
  // Attachments (images, blobs) are offload files too: the one sweeper deletes them.
  const sweeper = offloader.startSweeper();

  const memoryOffload = async (
    result: CallToolResult,
    call: ToolCallInfo,
    threshold: number,
  ): Promise<CallToolResult | undefined> => {
    const memory = memoryRecordsOf(result, call.name, call.arguments);
    if (!memory) return undefined;
    const outcome = await offloader.offloadRecords({
      ...memory,
      project: false,
      thresholdTokens: threshold,
    });
    if (outcome.kind === "inline") return result;
    const out = offloadOutcomeToResult(
      outcome,
      { ...memory, inline: undefined },
      { thresholdTokens: threshold },
    );
    return { ...keptFields(result), content: out.content };
  };

  return {
    config,
    extractToolName: options.extractToolName,

    async offloadCallResult(result, call) {
      const { policy } = call;
      if (result.isError === true || policy.mode === "never" || !config.enabled) return result;
      const threshold =
        policy.mode === "always" ? 0 : (policy.thresholdTokens ?? config.thresholdTokens);
      const tokens = await estimateCallResultTokens(result, threshold);
      if (tokens <= threshold) return result;
      try {
        if (options.memoryProfile) {
          const done = await memoryOffload(result, call, threshold);
          if (done) return done;
        }
        return await offloadResultSections(
          offloader,
          result,
          call,
          tokens,
          options.extractToolName,
        );
      } catch (err) {
        // The engine emitted OffloadWriteFailed for a failed sections write; attachments throw.
        const code =
          err instanceof SectionsOffloadFailed
            ? err.code
            : ((err as { cause?: { code?: string }; code?: string })?.cause?.code ??
              "WRITE_FAILED");
        if (!(err instanceof SectionsOffloadFailed)) {
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
        }
        return truncatedResult(result, threshold || config.thresholdTokens, code);
      }
    },

    callExtract(args) {
      return extract.call(args ?? {});
    },

    ownsUri(uri) {
      return uri.startsWith(options.resourcePrefix);
    },

    async close() {
      sweeper.stop();
      resources.close();
      await extract.close();
    },
  };
}
