/**
 * The paper's 20-message budget (Inspect AI's `message_limit`): every message
 * counts, so a strategy that needs more tool calls than fit runs out, which is
 * the paper's pagination-induced failure; an LRO agent fits easily.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conditionById } from "../src/conditions/conditions.js";
import { type Corpus, loadCorpus } from "../src/corpus/freeze.js";
import { createModel } from "../src/models/registry.js";
import type { ChatModel, ToolCall } from "../src/models/types.js";
import { runSample } from "../src/runner/sample.js";
import { createSandbox } from "../src/sandbox/sandbox.js";
import { scoreSample } from "../src/score/score.js";

const sandbox = createSandbox("auto");
let root: string;
let corpus: Corpus;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "atlatl-eval-budget-"));
  corpus = await loadCorpus(500);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function play(conditionId: string, model: ChatModel, messageLimit?: number | null) {
  const condition = conditionById(conditionId);
  if (!condition) throw new Error(conditionId);
  const record = await runSample(condition, corpus.idLookup[0] as never, corpus.records, {
    model,
    sandbox,
    price: undefined,
    workRoot: root,
    ...(messageLimit !== undefined ? { messageLimit } : {}),
  });
  return { record, score: await scoreSample(record) };
}

const pages = (r: { messages: { role: string; name?: string }[] }) =>
  r.messages.filter((m) => m.role === "tool" && m.name === "list_memories").length;

describe("message budget at n=500", () => {
  it("a scripted pager needing 100 pages scores 0 under the 20-message budget", async () => {
    const { record, score } = await play("e1-inline", createModel("scripted:exact"));
    expect(record.outcome).toBe("message_limit");
    expect(record.message_count).toBe(20);
    expect(pages(record)).toBe(9);
    expect(score.correct).toBe(0);
  });

  it("the same pager scores 1 with an unlimited budget, after 100 pages", async () => {
    const { record, score } = await play("e1-inline", createModel("scripted:exact"), null);
    expect(record.outcome).toBe("answered");
    expect(record.message_limit).toBeNull();
    expect(pages(record)).toBe(100);
    expect(record.message_count).toBe(2 + 100 * 2 + 1);
    expect(score.correct).toBe(1);
  });

  it("a scripted LRO agent scores 1 within the budget", async () => {
    const { record, score } = await play("e1-lro", createModel("scripted:exact"));
    expect(record.outcome).toBe("answered");
    expect(record.message_count).toBeLessThanOrEqual(20);
    expect(score.correct).toBe(1);
  });

  it("several tool calls in one reply count one message each; calls past the budget are not run", async () => {
    // A model that asks for 12 pages at once, every turn.
    let turn = 0;
    const greedy: ChatModel = {
      id: "test:parallel",
      scripted: true,
      async complete() {
        turn++;
        const toolCalls: ToolCall[] = Array.from({ length: 12 }, (_, i) => ({
          id: `t${turn}_${i}`,
          name: "list_memories",
          arguments: { page: (turn - 1) * 12 + i + 1 },
          rawArguments: "{}",
        }));
        return {
          text: "still counting",
          toolCalls,
          stopReason: "tool_use",
          usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        };
      },
    };
    const { record, score } = await play("e1-inline", greedy);
    // system + user + (assistant + 12 tools) = 15; second assistant = 16; 4 more tools = 20.
    expect(turn).toBe(2);
    expect(pages(record)).toBe(16);
    expect(record.message_count).toBe(20);
    expect(record.limit_note).toContain("8 tool call(s) of the last reply not run");
    // The last reply's text is the answer Inspect would score: here, none.
    expect(score.answer).toBeNull();
  });

  it("a budget-cut sample keeps its last reply's answer, as Inspect scores output.completion", async () => {
    let turn = 0;
    const hedging: ChatModel = {
      id: "test:hedge",
      scripted: true,
      async complete() {
        turn++;
        return {
          text: "So far I count ANSWER: 8",
          toolCalls: [
            {
              id: `h${turn}`,
              name: "list_memories",
              arguments: { page: turn },
              rawArguments: "{}",
            },
          ],
          stopReason: "tool_use",
          usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        };
      },
    };
    const { record, score } = await play("e1-inline", hedging, 6);
    expect(turn).toBe(2);
    expect(record.outcome).toBe("message_limit");
    expect(score.answer).toBe(8);
    expect(score.correct).toBe(1);
  });
});
