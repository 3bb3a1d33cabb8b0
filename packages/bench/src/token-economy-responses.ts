/**
 * The OpenAI Responses API as Codex calls it (`POST /v1/responses`, streamed as
 * SSE), for the scripted model: a request read as the Messages form the agent and
 * the measures use, and the agent's step written back as Responses output items.
 * Codex groups an MCP server's tools in a namespace (`mcp__{server}`); the agent
 * names them `mcp__{server}__{tool}`, as Claude Code does.
 */
import type { ServerResponse } from "node:http";
import type { Block, Message, Step } from "./token-economy-agent.js";
import type { ModelRequest } from "./token-economy-model.js";

interface ResponsesItem {
  type: string;
  role?: string;
  content?: string | { type: string; text?: string }[];
  name?: string;
  namespace?: string;
  arguments?: string;
  call_id?: string;
  output?: string | { type: string; text?: string }[];
}

/** A Responses request body (the fields the benchmark reads). */
export interface ResponsesBody {
  model: string;
  instructions?: string;
  tools?: { name?: string; type: string }[];
  input: ResponsesItem[];
}

const texts = (c: ResponsesItem["content"]): Block[] =>
  typeof c === "string"
    ? [{ type: "text", text: c }]
    : (c ?? []).map((p) => ({ type: "text", text: p.text ?? "" }));

/** The request in the Messages form: instructions as system, items as messages. */
export function fromResponses(body: ResponsesBody): ModelRequest {
  const messages: Message[] = [];
  for (const item of body.input) {
    if (item.type === "message")
      messages.push({ role: item.role ?? "user", content: texts(item.content) });
    else if (item.type === "function_call")
      messages.push({
        role: "assistant",
        content: [
          {
            type: "tool_use",
            id: item.call_id,
            name: item.namespace ? `${item.namespace}__${item.name}` : item.name,
            input: JSON.parse(item.arguments || "{}"),
          },
        ],
      });
    else if (item.type === "function_call_output")
      messages.push({
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: item.call_id,
            content: typeof item.output === "string" ? item.output : texts(item.output),
          },
        ],
      });
  }
  return {
    model: body.model,
    system: body.instructions ?? "",
    tools: (body.tools ?? []).map((t) => ({ ...t, name: t.name ?? t.type })),
    messages,
  };
}

/** The step as an output item: a message, or a function call with its namespace split off. */
function outputItem(step: Step, n: number): Record<string, unknown> {
  if (step.kind === "answer")
    return {
      type: "message",
      id: `msg_bench_${n}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: step.text, annotations: [] }],
    };
  const m = /^(mcp__.+?)__(.+)$/.exec(step.name);
  return {
    type: "function_call",
    id: `fc_bench_${n}`,
    status: "completed",
    call_id: `call_bench_${n}`,
    ...(m ? { namespace: m[1], name: m[2] } : { name: step.name }),
    arguments: JSON.stringify(step.input),
  };
}

/** Answer one Responses request with `step`, streamed. */
export function streamResponses(res: ServerResponse, model: string, step: Step, n: number): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const ev = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const id = `resp_bench_${n}`;
  const item = outputItem(step, n);
  ev("response.created", { response: { id, object: "response", model, status: "in_progress" } });
  ev("response.output_item.added", { output_index: 0, item });
  ev("response.output_item.done", { output_index: 0, item });
  ev("response.completed", {
    response: {
      id,
      object: "response",
      model,
      status: "completed",
      output: [item],
      usage: {
        input_tokens: 1,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 1,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 2,
      },
    },
  });
  res.end();
}
