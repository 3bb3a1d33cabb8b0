import { describe, expect, it } from "vitest";
import { conditionById } from "../src/conditions/conditions.js";
import { loadCorpus } from "../src/corpus/freeze.js";
import type { ChatModel } from "../src/models/types.js";
import { runSample } from "../src/runner/sample.js";
import { createSandbox } from "../src/sandbox/sandbox.js";
import { parseAnswer } from "../src/score/answer.js";
import { scoreSample } from "../src/score/score.js";

const usage = { input: 10, output: 1, cacheRead: 0, cacheWrite: 0 };

describe("agent loop", () => {
  it("stops at the message budget: 20 messages counting system and user, no answer, score 0", async () => {
    let calls = 0;
    const looping: ChatModel = {
      id: "test:loop",
      scripted: true,
      async complete(req) {
        calls++;
        // The model is never called with a conversation already at the limit.
        expect(req.messages.length + 1).toBeLessThan(20);
        return {
          text: "",
          stopReason: "tool_use",
          usage,
          toolCalls: [
            {
              id: `c${calls}`,
              name: "list_memories",
              arguments: { page: 1 },
              rawArguments: '{"page":1}',
            },
          ],
        };
      },
    };
    const corpus = await loadCorpus(50);
    const condition = conditionById("e1-inline");
    if (!condition) throw new Error("e1-inline");
    const record = await runSample(condition, corpus.idLookup[0] as never, corpus.records, {
      model: looping,
      sandbox: createSandbox("auto"),
      price: undefined,
    });
    // system + user + 9 x (assistant + tool) = 20: no tenth call.
    expect(calls).toBe(9);
    expect(record.outcome).toBe("message_limit");
    expect(record.message_limit).toBe(20);
    expect(record.message_count).toBe(20);
    expect(record.messages).toHaveLength(19);
    expect(record.limit_note).toContain("message limit 20 reached after 9 model calls");
    expect(record.turns).toHaveLength(9);
    expect(record.usage.input).toBe(90);
    const score = await scoreSample(record);
    expect(score.answer).toBeNull();
    expect(score.correct).toBe(0);
    expect(score.tool_calls).toBe(9);
  });

  it("records a failing model call as an error sample (to be retried on resume)", async () => {
    const broken: ChatModel = {
      id: "test:broken",
      scripted: true,
      async complete() {
        throw Object.assign(new Error("overloaded after retries"), { status: 529 });
      },
    };
    const corpus = await loadCorpus(50);
    const record = await runSample(
      conditionById("e2-c1") as never,
      corpus.idLookup[0] as never,
      corpus.records,
      {
        model: broken,
        sandbox: createSandbox("auto"),
        price: undefined,
      },
    );
    expect(record.outcome).toBe("error");
    expect(record.error).toContain("overloaded");
  });
});

describe("answer parsing", () => {
  it.each([
    ["ANSWER: 8", 8],
    ["I found 12 ids; 8 exist.\nANSWER: 8", 8],
    ["**ANSWER:** 1,204", 1204],
    ["answer = 7\nANSWER: 8", 8],
    ["There are 8 of them.", 8],
    ["I could not tell.", null],
  ] as const)("%j -> %j", (text, expected) => {
    expect(parseAnswer(text)).toBe(expected);
  });
});
