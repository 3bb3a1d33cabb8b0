/**
 * The access ratio as the paper defines it (rho = k/n, the records the agent
 * consumed): a record is consumed when its body reaches the agent, not when
 * only its id does.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conditionById } from "../src/conditions/conditions.js";
import { type Corpus, loadCorpus } from "../src/corpus/freeze.js";
import type { ChatModel } from "../src/models/types.js";
import { runSample } from "../src/runner/sample.js";
import { createSandbox } from "../src/sandbox/sandbox.js";
import { scoreSample } from "../src/score/score.js";

let root: string;
let corpus: Corpus;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "atlatl-eval-access-"));
  corpus = await loadCorpus(50);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** An agent that lists the memories, runs one shell command on the file, and answers 8. */
function oneCommand(command: (file: string) => string): ChatModel {
  return {
    id: "test:one-command",
    scripted: true,
    async complete(req) {
      const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 };
      const tools = req.messages.filter((m) => m.role === "tool");
      const call = (name: string, args: Record<string, unknown>) => ({
        text: "",
        stopReason: "tool_use",
        usage,
        toolCalls: [{ id: `c${tools.length}`, name, arguments: args, rawArguments: "{}" }],
      });
      if (tools.length === 0) return call("list_memories", {});
      if (tools.length === 1) {
        const file = JSON.parse(tools[0]?.content ?? "{}").file_path as string;
        return call("bash", { command: command(file) });
      }
      return { text: "ANSWER: 8", toolCalls: [], stopReason: "end_turn", usage };
    },
  };
}

async function ratio(command: (file: string) => string): Promise<number | null> {
  const task = corpus.idLookup[0];
  if (task?.kind !== "id_lookup") throw new Error("task");
  const record = await runSample(conditionById("e2-c4") as never, task, corpus.records, {
    model: oneCommand(command),
    sandbox: createSandbox("auto"),
    price: undefined,
    workRoot: root,
  });
  expect(record.outcome).toBe("answered");
  return (await scoreSample(record)).access_ratio;
}

describe("access ratio: records consumed / records offloaded", () => {
  it("listing every id consumes no record", async () => {
    expect(await ratio((f) => `tail -n +2 '${f}' | jq -r .id`)).toBe(0);
  });

  it("a count consumes no record", async () => {
    const ids = (corpus.idLookup[0]?.ids ?? []).map((id) => `-e ${id}`).join(" ");
    expect(await ratio((f) => `grep -c -F ${ids} '${f}'`)).toBe(0);
  });

  it("printing the 8 matching lines consumes 8 records", async () => {
    const ids = (corpus.idLookup[0]?.ids ?? []).map((id) => `-e ${id}`).join(" ");
    expect(await ratio((f) => `grep -F ${ids} '${f}'`)).toBe(8 / 50);
  });

  it("printing the bodies (jq -r .content) of every record consumes them all", async () => {
    expect(await ratio((f) => `tail -n +2 '${f}' | jq -r .content`)).toBe(1);
  });
});
