/**
 * A scripted model on 127.0.0.1 speaking the Anthropic Messages API as Claude
 * Code calls it (`POST /v1/messages` streamed as SSE, `/v1/messages/count_tokens`)
 * and the OpenAI Responses API as Codex calls it (`POST /v1/responses`, see
 * token-economy-responses.ts), answering from the scripted agent and logging every
 * request body (a Responses request in the Messages form).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { countTokens } from "gpt-tokenizer";
import { type Message, resultText, type Step } from "./token-economy-agent.js";
import { fromResponses, type ResponsesBody, streamResponses } from "./token-economy-responses.js";

/** One logged `POST /v1/messages` body (the fields the benchmark measures). */
export interface ModelRequest {
  model: string;
  system?: unknown;
  tools?: { name: string }[];
  messages: Message[];
}

interface ScriptedModel {
  /** Base URL for `ANTHROPIC_BASE_URL`. */
  url: string;
  /** Every `/v1/messages` request, in arrival order. */
  requests: ModelRequest[];
  /** Every `/v1/messages/count_tokens` request, in arrival order. */
  counts: ModelRequest[];
  /** Agent failures (answered as text so the client ends its turn). */
  errors: string[];
  close(): Promise<void>;
}

/** o200k tokens of `text` (special-token text in data is plain text). */
export function o200k(text: string): number {
  return countTokens(text, { disallowedSpecial: new Set() });
}

/**
 * The texts a model reads from a request, in order: the system prompt, each tool
 * definition (as JSON), then each message block (text, a tool call's name and
 * input, a tool result's text). JSON framing of the request itself is not counted.
 */
export function requestTexts(body: Pick<ModelRequest, "system" | "tools" | "messages">): string[] {
  const out: string[] = [];
  const sys = body.system;
  if (typeof sys === "string") out.push(sys);
  else if (Array.isArray(sys)) for (const b of sys as { text?: string }[]) out.push(b.text ?? "");
  for (const t of body.tools ?? []) out.push(JSON.stringify(t));
  for (const m of body.messages) {
    if (typeof m.content === "string") {
      out.push(m.content);
      continue;
    }
    for (const b of m.content) {
      if (b.type === "text") out.push(b.text ?? "");
      else if (b.type === "tool_use") out.push(`${b.name} ${JSON.stringify(b.input)}`);
      else if (b.type === "tool_result") out.push(resultText(b.content));
    }
  }
  return out;
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function contentOf(step: Step, n: number): Record<string, unknown> {
  return step.kind === "tool"
    ? { type: "tool_use", id: `toolu_bench_${n}`, name: step.name, input: step.input }
    : { type: "text", text: step.text };
}

function stream(res: ServerResponse, model: string, step: Step, n: number): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const ev = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const usage = { input_tokens: 1, output_tokens: 1 };
  ev("message_start", {
    message: {
      id: `msg_bench_${n}`,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  if (step.kind === "tool") {
    ev("content_block_start", { index: 0, content_block: { ...contentOf(step, n), input: {} } });
    ev("content_block_delta", {
      index: 0,
      delta: { type: "input_json_delta", partial_json: JSON.stringify(step.input) },
    });
  } else {
    ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: step.text } });
  }
  ev("content_block_stop", { index: 0 });
  ev("message_delta", {
    delta: { stop_reason: step.kind === "tool" ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: 1 },
  });
  ev("message_stop", {});
  res.end();
}

/** Start a scripted model that answers each request with `agent(messages)`. */
export async function startScriptedModel(
  agent: (messages: Message[]) => Step,
): Promise<ScriptedModel> {
  const requests: ModelRequest[] = [];
  const errors: string[] = [];
  const counts: ModelRequest[] = [];
  const answer = (messages: Message[]): Step => {
    try {
      return agent(messages);
    } catch (err) {
      errors.push(String(err));
      return { kind: "answer", text: `agent error: ${String(err)}` };
    }
  };
  const server = createServer((req, res) => {
    void (async () => {
      const raw = JSON.parse(await read(req)) as unknown;
      const path = (req.url ?? "").split("?")[0];
      if (path === "/v1/responses") {
        const r = raw as ResponsesBody;
        const body = fromResponses(r);
        requests.push(body);
        return streamResponses(res, r.model, answer(body.messages), requests.length);
      }
      const body = raw as ModelRequest & { stream?: boolean };
      if (path === "/v1/messages/count_tokens") {
        counts.push(body);
        const input_tokens = requestTexts(body).reduce((n, t) => n + o200k(t), 0);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ input_tokens }));
        return;
      }
      if (path !== "/v1/messages") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ type: "error", error: { type: "not_found_error", message: path } }),
        );
        return;
      }
      requests.push(body);
      const step = answer(body.messages);
      const n = requests.length;
      if (body.stream) return stream(res, body.model, step, n);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: `msg_bench_${n}`,
          type: "message",
          role: "assistant",
          model: body.model,
          content: [contentOf(step, n)],
          stop_reason: step.kind === "tool" ? "tool_use" : "end_turn",
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      );
    })().catch((err: unknown) => {
      errors.push(String(err));
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    counts,
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
