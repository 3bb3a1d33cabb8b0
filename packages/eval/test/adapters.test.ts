/**
 * The adapters end to end: the real SDKs against a fake model server on
 * loopback replaying scripted tool-calling conversations (with a 429, a 503
 * and a malformed tool call), through the real runner, tools and scorer.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conditionById } from "../src/conditions/conditions.js";
import { loadCorpus } from "../src/corpus/freeze.js";
import type { IdLookupTask } from "../src/corpus/tasks.js";
import { costOf, DEFAULT_PRICES, priceOf } from "../src/models/pricing.js";
import { createModel } from "../src/models/registry.js";
import { runGrid } from "../src/runner/run.js";
import { createSandbox } from "../src/sandbox/sandbox.js";
import {
  anthropicReply,
  type FakeModelServer,
  openaiReply,
  RATE_LIMITED,
  SERVER_ERROR,
  startFakeModelServer,
} from "./fixtures/fake-model-server.js";

let server: FakeModelServer;
let out: string;
let task: IdLookupTask;
const sandbox = createSandbox("auto");
const condition = conditionById("e2-c1");

/** The command a competent model would send (the file is the only .jsonl in its directory). */
const grepCommand = () =>
  `tail -n +2 *.jsonl | jq -r .id | grep -c -x -F ${task.ids.map((id) => `-e ${id}`).join(" ")}`;

beforeAll(async () => {
  server = await startFakeModelServer();
  out = await mkdtemp(join(tmpdir(), "atlatl-eval-adapters-"));
  task = (await loadCorpus(50)).idLookup[0] as IdLookupTask;
  process.env.ANTHROPIC_API_KEY = "test-anthropic-key";
  process.env.OPENAI_API_KEY = "test-openai-key";
});
afterAll(async () => {
  await server.close();
  await rm(out, { recursive: true, force: true });
});

async function runOne(model: string) {
  const r = await runGrid({
    model: createModel(model, {
      baseURL: `${server.url}${model.startsWith("anthropic") ? "" : "/v1"}`,
    }),
    conditions: condition ? [condition] : [],
    scales: [50],
    tasks: 1,
    out,
    sandbox,
    prices: DEFAULT_PRICES,
  });
  expect(r.scores).toHaveLength(1);
  return r.scores[0];
}

describe("Anthropic adapter (@anthropic-ai/sdk)", () => {
  it("retries a 429, runs tool calls, groups tool results, accounts usage with cache tokens", async () => {
    server.requests.length = 0;
    server.script("/v1/messages", [
      RATE_LIMITED,
      anthropicReply([{ type: "tool_use", id: "tu_1", name: "list_memories", input: {} }]),
      (body) => {
        const last = (body.messages as { content: { type: string; content: string }[] }[]).at(-1);
        expect(last?.content[0]?.type).toBe("tool_result");
        expect(last?.content[0]?.content).toContain('"file_path"');
        return anthropicReply(
          [
            { type: "text", text: "Counting with grep." },
            { type: "tool_use", id: "tu_2", name: "bash", input: { command: grepCommand() } },
            { type: "tool_use", id: "tu_3", name: "bash", input: ["not", "an", "object"] },
          ],
          {
            input_tokens: 900,
            output_tokens: 60,
            cache_read_input_tokens: 400,
            cache_creation_input_tokens: 50,
          } as never,
        );
      },
      (body) => {
        const last = (
          body.messages as {
            role: string;
            content: { type: string; content: string; is_error: boolean }[];
          }[]
        ).at(-1);
        // Both results of one turn go back in one user message.
        expect(last?.content).toHaveLength(2);
        expect(last?.content[0]?.content.trim()).toBe("8");
        expect(last?.content[1]?.is_error).toBe(true);
        expect(last?.content[1]?.content).toContain("BAD_ARGUMENTS");
        return anthropicReply(
          [{ type: "text", text: "8 of the 12 IDs exist.\nANSWER: 8" }],
          { input_tokens: 1000, output_tokens: 10 },
          "end_turn",
        );
      },
    ]);
    const s = await runOne("anthropic:claude-haiku-4-5");
    expect(s?.correct).toBe(1);
    expect(s?.turns).toBe(3);
    expect(server.requests).toHaveLength(4);
    // The key comes from the environment (this SDK version sends it as a bearer token).
    const auth = server.requests[0]?.headers;
    expect(auth?.["x-api-key"] ?? auth?.authorization).toMatch(/^(Bearer )?test-anthropic-key$/);
    expect(server.requests[1]?.headers["x-stainless-retry-count"]).toBe("1");
    const tokens = 100 + 20 + 900 + 60 + 400 + 50 + 1000 + 10;
    expect(s?.total_tokens).toBe(tokens);
    const usage = { input: 2000, output: 90, cacheRead: 400, cacheWrite: 50 };
    expect(s?.cost_usd).toBeCloseTo(costOf(usage, priceOf("claude-haiku-4-5")), 12);
    expect(s?.cost_usd).toBeCloseTo((2000 * 1 + 90 * 5 + 400 * 0.1 + 50 * 1.25) / 1e6, 12);
    expect(server.requests[1]?.body.tools).toHaveLength(3);
  });
});

describe("OpenAI-compatible adapter (openai SDK with a base URL)", () => {
  it("retries a 503, answers a malformed tool call with an error the model can act on, counts cached tokens", async () => {
    server.requests.length = 0;
    server.script("/v1/chat/completions", [
      SERVER_ERROR,
      openaiReply({
        tool_calls: [
          { id: "c1", type: "function", function: { name: "list_memories", arguments: "{}" } },
        ],
      }),
      openaiReply({
        tool_calls: [
          {
            id: "c2",
            type: "function",
            function: { name: "bash", arguments: '{"command": "tail -n +2' },
          },
        ],
      }),
      (body) => {
        const msgs = body.messages as { role: string; content: string; tool_call_id?: string }[];
        const last = msgs.at(-1);
        expect(last?.role).toBe("tool");
        expect(last?.tool_call_id).toBe("c2");
        expect(last?.content).toContain("BAD_ARGUMENTS");
        // The malformed call is replayed as valid JSON holding the raw text.
        const call = (msgs.at(-2) as { tool_calls?: { function: { arguments: string } }[] })
          ?.tool_calls?.[0];
        expect(JSON.parse(call?.function.arguments ?? "")).toEqual({
          invalid_arguments: '{"command": "tail -n +2',
        });
        return openaiReply({
          tool_calls: [
            {
              id: "c3",
              type: "function",
              function: { name: "bash", arguments: JSON.stringify({ command: grepCommand() }) },
            },
          ],
        });
      },
      openaiReply(
        { content: "ANSWER: 8" },
        {
          prompt_tokens: 1000,
          completion_tokens: 5,
          total_tokens: 1005,
          prompt_tokens_details: { cached_tokens: 600 },
        },
        "stop",
      ),
    ]);
    const s = await runOne("openai:gpt-5-mini");
    expect(s?.correct).toBe(1);
    expect(s?.turns).toBe(4);
    expect(server.requests).toHaveLength(5);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer test-openai-key");
    expect((server.requests[1]?.body.messages as { role: string }[] | undefined)?.[0]?.role).toBe(
      "system",
    );
    expect(s?.total_tokens).toBe(3 * 120 + 1005);
    // 600 of the last prompt's tokens were cached: billed at the cached rate.
    const expected = ((300 + 400) * 0.25 + (60 + 5) * 2 + 600 * 0.025) / 1e6;
    expect(s?.cost_usd).toBeCloseTo(expected, 12);
  });

  it("a local server (vllm:) gets no OpenAI key and plain max_tokens", async () => {
    server.requests.length = 0;
    server.script("/v1/chat/completions", [
      openaiReply({ content: "ANSWER: 3" }, undefined, "stop"),
    ]);
    const s = await runOne("vllm:qwen3-8b");
    expect(s?.answer).toBe(3);
    expect(s?.correct).toBe(0);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer not-needed");
    expect(server.requests[0]?.body.max_tokens).toBe(8192);
    expect(s?.cost_usd).toBe(0);
  });
});

describe("Anthropic prompt caching (--prompt-cache)", () => {
  it("puts one cache breakpoint on the last block of each request", async () => {
    server.requests.length = 0;
    server.script("/v1/messages", [
      anthropicReply([{ type: "tool_use", id: "tu_1", name: "list_memories", input: {} }]),
      anthropicReply([{ type: "text", text: "ANSWER: 8" }], undefined, "end_turn"),
    ]);
    const r = await runGrid({
      model: createModel("anthropic:claude-haiku-4-5", { baseURL: server.url, promptCache: true }),
      conditions: condition ? [condition] : [],
      scales: [50],
      tasks: 1,
      out: join(out, "cache"),
      sandbox,
      prices: DEFAULT_PRICES,
    });
    expect(r.scores[0]?.correct).toBe(1);
    const marks = server.requests.map((q) =>
      (q.body.messages as { content: string | { cache_control?: unknown }[] }[]).flatMap((m) =>
        typeof m.content === "string"
          ? [false]
          : m.content.map((b) => b.cache_control !== undefined),
      ),
    );
    expect(marks).toEqual([[true], [false, false, true]]);
  });
});

describe("loose local servers", () => {
  it("accepts tool calls without type or id and with object arguments", async () => {
    server.script("/v1/chat/completions", [
      openaiReply({ tool_calls: [{ function: { name: "list_memories", arguments: {} } }] }),
      openaiReply({
        tool_calls: [{ id: "", function: { name: "bash", arguments: { command: grepCommand() } } }],
      }),
      (body) => {
        const msgs = body.messages as { role: string; content: string; tool_call_id?: string }[];
        expect(msgs.at(-1)?.content.trim()).toBe("8");
        expect(new Set(msgs.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).size).toBe(
          2,
        );
        return openaiReply({ content: "ANSWER: 8" }, undefined, "stop");
      },
    ]);
    const s = await runOne("ollama:qwen3");
    expect(s?.correct).toBe(1);
    expect(s?.tool_calls).toBe(2);
  });
});

describe("concurrency limit", () => {
  it("never has more samples in flight than --concurrency", async () => {
    server.maxInFlight = 0;
    const answer = { ...openaiReply({ content: "ANSWER: 8" }, undefined, "stop"), delayMs: 60 };
    server.script("/v1/chat/completions", [answer, answer, answer, answer, answer, answer]);
    const r = await runGrid({
      model: createModel("openai:gpt-5-mini", { baseURL: `${server.url}/v1` }),
      conditions: condition ? [condition] : [],
      scales: [50],
      tasks: 6,
      out: join(out, "concurrency"),
      sandbox,
      prices: DEFAULT_PRICES,
      concurrency: 2,
    });
    expect(r.scores).toHaveLength(6);
    expect(r.scores.every((s) => s.correct === 1)).toBe(true);
    expect(server.maxInFlight).toBe(2);
  });
});

describe("fatal API errors", () => {
  it("a 401 stops the run with a clear error instead of recording every sample as failed", async () => {
    const denied = {
      status: 401,
      body: {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      },
    };
    server.script("/v1/messages", [denied, denied, denied, denied]);
    await expect(
      runGrid({
        model: createModel("anthropic:claude-haiku-4-5", { baseURL: server.url }),
        conditions: condition ? [condition] : [],
        scales: [50],
        tasks: 3,
        out: join(out, "fatal"),
        sandbox,
        prices: DEFAULT_PRICES,
        concurrency: 1,
      }),
    ).rejects.toThrow(/stopped after 0 samples.*401/);
  });
});
