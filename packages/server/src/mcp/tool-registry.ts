/**
 * atlatl's tools, served on the SDK's low-level `Server` (`McpServer.server`)
 * through its documented `setRequestHandler` for `tools/list` and
 * `tools/call` (or beside `lro_extract`, whose registration takes them as its
 * upstream). Why not `McpServer.registerTool`: the SDK validates arguments
 * before any callback runs and answers a failure with plain English text; here
 * the tool's own strict zod schema is checked first, so a bad argument is
 * `INVALID_ARGUMENT (field): message` with `structuredContent.error` like every
 * other tool error, and the listed `inputSchema` is that same schema's JSON
 * Schema (what the SDK would list). Each tool's callback is composed with the
 * middleware once, at registration.
 *
 * Built once and shared by every server instance that serves the same tools
 * (on modern HTTP a fresh instance serves each request): the schemas, their
 * JSON Schemas and the composed handlers are made at registration; an
 * instance only mounts the registry (`mount`, or `upstreamFor` beside
 * `lro_extract`), handing each call what that request says about its client
 * (`ToolCallContext`) and where its tasks live.
 *
 * Tools in `taskTools` may run as MCP Tasks (`taskSupport: "optional"` on
 * 2025-11-25; the `io.modelcontextprotocol/tasks` extension on 2026-07-28):
 * a task call is answered with a working task at once and the tool runs
 * detached (`tasks/task-call.ts`); a plain call simply gets its result and
 * creates no task.
 *
 * `tools/list` lists the tools in registration order, the same on every call.
 */
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
  type Tool,
  type ToolAnnotations,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { type InitializeFacts, type ToolCallContext, toolCallContext } from "./client-facts.js";
import { answerWithTask, type ToolTasks, taskRequestOf } from "./tasks/task-call.js";
import { compose, type ToolHandler, type ToolMiddleware } from "./tool-middleware.js";
import { toolError } from "./tools/json-result.js";

/** What a tool callback gets beside its arguments: the SDK's handler context and the client's facts. */
type HandlerExtra = ToolCallContext;

/** A `tools/call` request as the registry reads it. */
interface ToolCallRequest {
  params: { name: string; arguments?: Record<string, unknown> | undefined; task?: unknown };
}

/** The tools of one server instance, as a low-level `tools/*` upstream (`lro_extract`'s). */
interface ToolsOfServer {
  listTools(): Promise<{ tools: Tool[] }>;
  callTool(request: ToolCallRequest, ctx: ServerContext): Promise<CallToolResult>;
}
/** How a tool is declared. */
interface ToolConfig<S extends z.ZodRawShape> {
  title?: string;
  description: string;
  /** The arguments; unknown ones are refused (the listed schema says `additionalProperties: false`). */
  inputSchema: S;
  annotations?: ToolAnnotations;
}

/** Register a tool: its callback gets the parsed arguments and the request's `extra`. */
export type RegisterTool = <S extends z.ZodRawShape>(
  name: string,
  config: ToolConfig<S>,
  callback: (
    args: z.output<z.ZodObject<S>>,
    extra: HandlerExtra,
  ) => CallToolResult | Promise<CallToolResult>,
) => void;

interface Entry {
  definition: Tool;
  schema: z.ZodObject;
  handler: ToolHandler;
}

/** The first issue's argument: its path's first key, or the unrecognized key. */
function fieldOf(issue: z.core.$ZodIssue | undefined): string | undefined {
  if (!issue) return undefined;
  if (issue.code === "unrecognized_keys") return issue.keys[0];
  const key = issue.path[0];
  return key === undefined ? undefined : String(key);
}

/** A failed argument check as the one tool error shape. */
function invalidArguments(error: z.ZodError): CallToolResult {
  const message = error.issues
    .map((i) => (i.path.length ? `${i.message} at ${i.path.join(".")}` : i.message))
    .join("; ");
  return toolError({ code: "INVALID_ARGUMENT", message, field: fieldOf(error.issues[0]) });
}

/** The tools of one atlatl server; see the module comment. */
export class ToolRegistry {
  private readonly tools = new Map<string, Entry>();
  private readonly wrap: ToolMiddleware;

  constructor(
    middleware: readonly ToolMiddleware[],
    /** The tools that may run as tasks. */
    private readonly taskTools: ReadonlySet<string> = new Set(),
  ) {
    this.wrap = compose(...middleware);
  }

  readonly register: RegisterTool = (name, config, callback) => {
    const schema = z.strictObject(config.inputSchema);
    // No `$schema`: the schema is read the same on both generations (2026-07-28
    // takes a schema without one as JSON Schema 2020-12, which it also is).
    const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(schema, {
      target: "draft-7",
      io: "input",
    });
    const definition: Tool = {
      name,
      ...(config.title !== undefined ? { title: config.title } : {}),
      description: config.description,
      inputSchema: inputSchema as Tool["inputSchema"],
      ...(config.annotations ? { annotations: config.annotations } : {}),
      ...(this.taskTools.has(name) ? { execution: { taskSupport: "optional" as const } } : {}),
    };
    this.tools.set(name, { definition, schema, handler: this.wrap(callback as ToolHandler) });
  };

  async listTools(): Promise<{ tools: Tool[] }> {
    return { tools: [...this.tools.values()].map((t) => t.definition) };
  }

  /** Call a tool for a request whose client is `extra`'s; task calls become tasks in `tasks`. */
  async callTool(
    request: ToolCallRequest,
    extra: HandlerExtra,
    tasks?: ToolTasks,
  ): Promise<CallToolResult> {
    const { name, arguments: args } = request.params;
    const tool = this.tools.get(name);
    // A protocol error, as the specification (2025-11-25 and 2026-07-28) and the SDK 2.x McpServer answer it.
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
    const parsed = tool.schema.safeParse(args ?? {});
    const call = async (e: HandlerExtra): Promise<CallToolResult> =>
      parsed.success ? tool.handler(parsed.data, e) : invalidArguments(parsed.error);
    const task = tasks ? taskRequestOf(request.params, extra) : undefined;
    const taskTool = this.taskTools.has(name);
    // A 2026-07-28 client that accepts tasks gets one only from a task tool.
    if (!tasks || task === undefined || (task.era === "modern" && !taskTool)) return call(extra);
    if (!taskTool) {
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `Tool ${name} does not run as a task`,
      );
    }
    // A bad argument fails the task, as the plain call would fail.
    return answerWithTask(tasks, task, extra, call);
  }

  /**
   * The tools as `server` serves them: each call with its client's facts (its
   * connection's `initialize` as sent, when the transport read it), its tasks
   * in `tasks`.
   */
  upstreamFor(server: Server, tasks?: ToolTasks, initialize?: InitializeFacts): ToolsOfServer {
    return {
      listTools: () => this.listTools(),
      callTool: (request, ctx) =>
        this.callTool(request, toolCallContext(ctx, server, initialize), tasks),
    };
  }

  /** Serve the tools on `server` alone (when no `lro_extract` serves them beside it). */
  mount(server: Server, tasks?: ToolTasks, initialize?: InitializeFacts): void {
    const tools = this.upstreamFor(server, tasks, initialize);
    server.setRequestHandler("tools/list", () => tools.listTools());
    // Results go through the SDK's projection for the client's era (as `McpServer` does).
    server.setRequestHandler("tools/call", async (request, ctx) =>
      server.projectCallToolResult(await tools.callTool(request, ctx), undefined),
    );
  }
}
