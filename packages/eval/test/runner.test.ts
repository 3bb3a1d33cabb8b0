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
  it("stops at the turn limit: no answer, accuracy 0, every turn recorded", async () => {
    let calls = 0;
    const looping: ChatModel = {
      id: "test:loop",
      scripted: true,
      async complete() {
        calls++;
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
    expect(calls).toBe(20);
    expect(record.outcome).toBe("turn_limit");
    expect(record.turns).toHaveLength(20);
    expect(record.usage.input).toBe(200);
    const score = await scoreSample(record);
    expect(score.answer).toBeNull();
    expect(score.correct).toBe(0);
    expect(score.tool_calls).toBe(20);
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
