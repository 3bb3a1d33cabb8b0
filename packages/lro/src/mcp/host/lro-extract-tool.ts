/**
 * `lro_extract` for MCP servers (SDK 1.x or 2.x; see `host.ts`): offloaded results
 * reachable without a shell (the specification's "Native Extraction via MCP
 * Tools"). Registering it switches the offloader's guidance to the native
 * template; descriptors keep their `jq_recipes` for shell users.
 */

import { z } from "zod";
import type { OffloadConfig } from "../../config/offload-config.js";
import type { LroEventListener } from "../../events/events.js";
import { RECIPE_NUMBERS } from "../../extract/extract-args.js";
import { type ExtractResult, LroExtractor } from "../../extract/extractor.js";
import type { JqEngine, JsonValue } from "../../extract/jq-engine.js";
import type { OffloadFileCache } from "../../extract/offload-reader.js";
import { LRO_EXTRACT_TOOL_NAME } from "../../extract/tool-name.js";
import { Offloader } from "../../offload/offloader.js";
import { offloaderReoffload } from "../../offload/reoffload.js";
import type { AnyCallToolResult, CallToolResult, Tool } from "../../protocol/mcp-types.js";
import {
  type McpNames,
  mcpNames,
  offloadResourceLink,
} from "../../protocol/offload-resource-uri.js";
import { hostCallback, isMcpServerHost, type McpHost, type Removable } from "./host.js";
import { mountTools, type ToolsUpstream } from "./low-level.js";
import { toolErrorResult } from "./tool-error.js";

export { LRO_EXTRACT_TOOL_NAME };

/** Options of {@link registerLroExtract}: an offloader, or a config to make one. */
export interface RegisterLroExtractOptions {
  /** The server's offloader: its config confines reads; its guidance turns native. */
  offloader?: Offloader;
  /** Used when no offloader is given (one is created for re-offloading large outputs). */
  config?: OffloadConfig;
  /** A jq engine to share (default: a new one owned by the registration). */
  engine?: JqEngine;
  /** Whose calls these are, when the engine is shared (see `LroExtractorOptions.principal`). */
  principal?: string;
  /** A parsed-file cache to share (default: a new one). */
  cache?: OffloadFileCache;
  /**
   * Add `resource_link`s to derived files of re-offloaded outputs: fixed, or
   * decided per call from the host's handler context (`extra`).
   */
  resourceLinks?: boolean | ((extra?: unknown) => boolean);
  /** Clock, epoch ms (expiry checks); default the offloader's or `Date.now`. */
  now?: () => number;
  /** Resource URI and `_meta` key prefixes (default atlatl's). */
  names?: Partial<McpNames>;
  /** Name of the tool (default `lro_extract`; a proxy renames it when the upstream has one). */
  toolName?: string;
  /**
   * Low-level `Server` only: the tools the server already serves. Its
   * `tools/list` and `tools/call` handlers are replaced by ones that serve
   * them and this tool.
   */
  upstream?: ToolsUpstream;
  /**
   * Middleware around the tool's callback, `(next) => handler`, composed once
   * at registration (the host's error shape, a session's confinement).
   */
  middleware?: (next: ExtractHandler) => ExtractHandler;
  /**
   * The listener of each call's LRO events (its re-offloaded output's
   * `OffloadCreated` or `OffloadWriteFailed`), from the callback's arguments
   * as the middleware passes them on (validated arguments, the host's handler
   * context), or undefined; as `withOffload`'s. Default: the offloader's hub only.
   */
  eventListener?: (...args: unknown[]) => LroEventListener | undefined;
}

/**
 * The tool's callback: validated arguments, and the SDK's request `extra` when
 * there is one; a middleware's may return its SDK's own `CallToolResult`.
 */
type ExtractHandler = (
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's callback arguments differ by host.
  args: any,
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's callback arguments differ by host.
  extra?: any,
) => AnyCallToolResult | Promise<AnyCallToolResult>;

/** What {@link registerLroExtract} returns. */
export interface LroExtractRegistration<T extends Removable = Removable> {
  /** The registered tool (on an `McpServer`, its `RegisteredTool`; undefined on a low-level `Server`). */
  tool: T | undefined;
  /** The tool's definition as `tools/list` shows it (JSON Schema input). */
  definition: Tool;
  /**
   * Run one call (arguments as a client sent them; validated here). `extra`,
   * the host's handler context, reaches the middleware as on an `McpServer`.
   */
  call(args: unknown, extra?: unknown): Promise<CallToolResult>;
  extractor: LroExtractor;
  offloader: Offloader;
  /** Remove the tool and stop the jq worker (and the offloader's sweeping) it owns. */
  close(): Promise<void>;
}

/**
 * The tool's text is sent with every request of a session, so it says only
 * what the descriptors do not: each descriptor lists its recipes, their
 * params and examples of calls, and a wrong call is answered with what to
 * send instead.
 */
const DESCRIPTION =
  "Query an offload file without a shell: run a recipe from its descriptor or a jq filter over its records. Output: jq -c lines.";

/**
 * An optional field declared as its plain type (absent means the default):
 * MCP Inspector 0.15 cannot fill fields declared `anyOf [T, null]`. A `null`
 * that some clients send for "unset" is still accepted, as absent.
 */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === null ? undefined : v), schema.optional());

const inputSchema = {
  file_path: z.string().describe("file_path of the offload descriptor"),
  recipe: optional(z.number().int().min(RECIPE_NUMBERS.first).max(RECIPE_NUMBERS.last)).describe(
    `Recipe number, ${RECIPE_NUMBERS.first}-${RECIPE_NUMBERS.last} (or query)`,
  ),
  query: optional(z.string()).describe("jq filter run on each record (or recipe)"),
  params: optional(
    // Any JSON value (arguments arrive as JSON); kept non-recursive for clients' schema parsers.
    z.record(z.string(), z.unknown()),
  ).describe('jq variables, e.g. {"ns": "x"} for $ns'),
  slurp: optional(z.boolean()).describe("query: all records as one array (jq -s)"),
  raw: optional(z.boolean()).describe("query: strings unquoted (jq -r)"),
  limit: optional(z.number().int().min(1)).describe("Max output lines"),
};

/** Strict: a misspelled argument (`fitler`) is refused, not dropped to run another query. */
const inputObject = z.strictObject(inputSchema);

/**
 * Drop the keywords that say nothing a client or model needs, sent with every
 * request: zod's implied integer bound (`Number.MAX_SAFE_INTEGER`), and a
 * record's string keys and unconstrained values (JSON's own rules).
 */
function leanKeywords(schema: Record<string, unknown>): void {
  if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
  if (schema.type === "object" && schema.propertyNames !== undefined) {
    const { propertyNames, additionalProperties } = schema as {
      propertyNames: Record<string, unknown>;
      additionalProperties?: unknown;
    };
    if (propertyNames.type === "string" && Object.keys(propertyNames).length === 1) {
      delete schema.propertyNames;
    }
    const anyValue =
      typeof additionalProperties === "object" &&
      additionalProperties !== null &&
      Object.keys(additionalProperties).length === 0;
    if (anyValue) delete schema.additionalProperties;
  }
}

/**
 * The tool's input as JSON Schema (without `$schema`), converted once: a
 * stateless server registers the tool again for every request.
 */
let inputJsonSchema: Tool["inputSchema"] | undefined;
function inputJson(): Tool["inputSchema"] {
  if (!inputJsonSchema) {
    const { $schema: _, ...schema } = z.toJSONSchema(inputObject, {
      io: "input",
      override: ({ jsonSchema }) => leanKeywords(jsonSchema),
    });
    inputJsonSchema = schema as Tool["inputSchema"];
  }
  return inputJsonSchema;
}

/** Turn an extraction outcome into the tool result. */
export function extractResultToToolResult(
  result: ExtractResult,
  options: { resourceLinks?: boolean; names?: Partial<McpNames> } = {},
): CallToolResult {
  const names = mcpNames(options.names);
  const meta = names.metaPrefix;
  if (!result.ok) return toolErrorResult(result.error);
  const out: CallToolResult = {
    content: [{ type: "text", text: result.text }],
    // For clients and benchmarks that want the numbers; models read the text.
    _meta: {
      [`${meta}engine`]: result.engine,
      [`${meta}values`]: result.count,
      [`${meta}total_values`]: result.total,
      [`${meta}source`]: result.file.name,
    },
  };
  if (result.offloaded) {
    if (options.resourceLinks) {
      for (const path of result.offloaded.paths) {
        out.content.push(
          offloadResourceLink(
            path,
            names.resourcePrefix,
            "Offloaded lro_extract output (JSONL; line 1 is the header)",
          ),
        );
      }
    }
    return out;
  }
  if (result.truncated) {
    out.content.push({
      type: "text",
      text:
        result.total === null
          ? `lro_extract: returned the first ${result.count} output values (limit); the filter stopped there, so there are more.`
          : `lro_extract: returned the first ${result.count} of ${result.total} output values (limit).`,
    });
  } else if (result.total === 0) {
    out.content.push({
      type: "text",
      text: "lro_extract: the filter produced no output (0 values).",
    });
  }
  return out;
}

/**
 * Register `lro_extract` on `server`: an `McpServer` (`registerTool`) or a
 * low-level `Server` (its `tools/list` and `tools/call` handlers, serving
 * `options.upstream`'s tools beside it), of SDK 1.x or 2.x, told apart by
 * what they declare. Reads are confined to the offloader's
 * output directory; recipes use a checked TypeScript fast path where it gives
 * exactly jq's output, and jq itself (sandboxed worker, time and memory
 * limits) otherwise. Sets `offloader.nativeExtraction` to the tool's name, so
 * offload guidance points to this tool.
 */
export function registerLroExtract<T extends Removable = Removable>(
  server: McpHost<T, unknown>,
  options: RegisterLroExtractOptions,
): LroExtractRegistration<T> {
  const offloader =
    options.offloader ??
    (options.config
      ? new Offloader({ config: options.config, ...(options.now ? { now: options.now } : {}) })
      : undefined);
  if (!offloader) throw new TypeError("registerLroExtract needs an offloader or a config");
  const names = mcpNames(options.names);
  const extractor = new LroExtractor({
    config: offloader.config,
    resourcePrefix: names.resourcePrefix,
    ...(options.engine ? { engine: options.engine } : {}),
    ...(options.principal !== undefined ? { principal: options.principal } : {}),
    ...(options.cache ? { cache: options.cache } : {}),
    ...(options.now ? { now: options.now } : {}),
    reoffload: offloaderReoffload(offloader),
    store: offloader.store,
  });
  const links = options.resourceLinks ?? false;
  const toolName = options.toolName ?? LRO_EXTRACT_TOOL_NAME;
  offloader.nativeExtraction = toolName;
  const run = async (args: z.infer<typeof inputObject>, extra?: unknown) =>
    extractResultToToolResult(
      await extractor.extract(
        { ...args, params: args.params as Record<string, JsonValue> | null | undefined },
        { onEvent: options.eventListener?.(args, extra) },
      ),
      { resourceLinks: typeof links === "function" ? links(extra) : links, names },
    );
  // The embedder's middleware, composed once here (e.g. atlatl's coded errors).
  const handler = options.middleware ? options.middleware(run) : run;
  const annotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
  const title = "Extract from an offloaded result";
  const definition: Tool = {
    name: toolName,
    title,
    description: DESCRIPTION,
    inputSchema: inputJson(),
    annotations,
  };
  const call = async (args: unknown, extra?: unknown): Promise<CallToolResult> => {
    const parsed = inputObject.safeParse(args ?? {});
    if (!parsed.success) {
      return toolErrorResult({ code: "INVALID_ARGUMENT", message: z.prettifyError(parsed.error) });
    }
    // The host's middleware answers in its SDK's terms; the result goes back to that host.
    return (await handler(parsed.data, extra)) as CallToolResult;
  };

  let tool: T | undefined;
  let unmount: (() => void) | undefined;
  if (isMcpServerHost(server)) {
    // The host validates with `inputObject` (zod v4, which both lines accept) before calling.
    const config = { title, description: DESCRIPTION, inputSchema: inputObject, annotations };
    tool = server.registerTool(
      toolName,
      config,
      hostCallback(async (args: z.infer<typeof inputObject>, extra) => handler(args, extra)),
    );
  } else {
    unmount = mountTools(server, { definition, call }, options.upstream);
  }
  return {
    tool,
    definition,
    call,
    extractor,
    offloader,
    async close() {
      tool?.remove();
      unmount?.();
      if (offloader !== options.offloader) offloader.stopSweeping();
      await extractor.close();
    },
  };
}
