/**
 * The `token-economy` benchmark's instrument: the scripted agent's policy on
 * each kind of tool result, the "with atlatl" arm as `install <client>` writes
 * it, and one real session per arm and client on the small scenario, whose
 * sizes are deterministic (no timing is asserted).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { estimateCallResultTokens } from "@atlatl/lro/mcp";
import { installThreshold } from "atlatl-proxy/install";
import { describe, expect, it } from "vitest";
import {
  type Arm,
  type BenchClient,
  offloadsFor,
  SCENARIOS,
  type Scenario,
} from "../src/token-economy.js";
import { type AgentTask, type Message, nextStep } from "../src/token-economy-agent.js";
import { claudeBin, runClaudeSession } from "../src/token-economy-claude.js";
import { codexBin, codexOutput, runCodexSession } from "../src/token-economy-codex.js";
import { DATASETS, FAILED } from "../src/token-economy-data.js";
import { measureSession } from "../src/token-economy-measure.js";
import { o200k } from "../src/token-economy-model.js";
import { SERVER_NAME } from "../src/token-economy-session.js";

const task: AgentTask = {
  tool: "mcp__bench__medium_report",
  input: {},
  question: { ...FAILED, prompt: "How many failed?", path: ["items"] },
  shell: { name: "Bash", input: (command) => ({ command }) },
};

/** A conversation: the tool call, then `results` as the successive tool results. */
function conversation(...results: string[]): Message[] {
  const messages: Message[] = [{ role: "user", content: "How many failed?" }];
  results.forEach((text, i) => {
    messages.push({
      role: "assistant",
      content: [{ type: "tool_use", id: `t${i}`, name: i === 0 ? task.tool : "Bash", input: {} }],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `t${i}`, content: text }],
    });
  });
  return messages;
}

const FILE = "/tmp/x/tool-results/r.txt";

describe("token-economy agent policy", () => {
  it("calls the tool first, then answers an inline result from it", () => {
    expect(nextStep(task, conversation())).toEqual({ kind: "tool", name: task.tool, input: {} });
    const text = JSON.stringify({ items: [{ status: "failed" }, { status: "ok" }] });
    expect(nextStep(task, conversation(text))).toEqual({ kind: "answer", text: "1" });
  });

  it("reads the first 2 KB of a file it was told nothing about, then queries it", () => {
    const notice = `Error: result exceeds maximum allowed tokens. Output has been saved to ${FILE}.\nFormat: Plain text`;
    expect(nextStep(task, conversation(notice))).toEqual({
      kind: "tool",
      name: "Bash",
      input: { command: `head -c 2048 '${FILE}'` },
    });
    const head = '{"items":[{"id":1,"status":"failed"';
    expect(nextStep(task, conversation(notice, head))).toEqual({
      kind: "tool",
      name: "Bash",
      input: { command: `jq -c '.items|map(select(.status=="failed"))|length' '${FILE}'` },
    });
    expect(nextStep(task, conversation(notice, head, "19\n"))).toEqual({
      kind: "answer",
      text: "19",
    });
  });

  it("queries at once when the client's preview or atlatl's descriptor shows the fields", () => {
    const preview = `<persisted-output>\nOutput too large. Full output saved to: ${FILE}\n\nPreview (first 2KB):\n{"content":"{\\"items\\":[{\\"status\\":`;
    expect(nextStep(task, conversation(preview))).toEqual({
      kind: "tool",
      name: "Bash",
      input: {
        command: `jq -c '.content|fromjson|.items|map(select(.status=="failed"))|length' '${FILE}'`,
      },
    });
    const descriptor = JSON.stringify({
      file: "/tmp/o/a.jsonl",
      schema: { fields: { status: "string" } },
    });
    expect(nextStep(task, conversation(`${descriptor}\n[Resource link: a.jsonl]`))).toEqual({
      kind: "tool",
      name: "Bash",
      input: {
        command: `tail -n +2 '/tmp/o/a.jsonl' | jq -s -c 'map(select(.status=="failed"))|length'`,
      },
    });
  });
});

const small = SCENARIOS.find((s) => s.tool === "small_report") as Scenario;
const SMALL_TEXT = JSON.stringify((DATASETS.small_report as () => unknown)());

describe("token-economy: the with-atlatl arm is what install writes", () => {
  it("runs atlatl-proxy and atlatl serve with the client's measured threshold", () => {
    for (const [client, threshold] of [
      ["claude-code", 12_500],
      ["codex", 2_800],
    ] as const) {
      expect(installThreshold(client)).toBe(threshold);
      for (const s of SCENARIOS) {
        const { args } = s.server("atlatl", "/tmp/dir", client);
        const at = args.indexOf("--threshold");
        expect(args[at + 1], `${client}: ${s.name}`).toBe(String(threshold));
        expect(s.server("alone", "/tmp/dir", client).args, s.name).not.toContain("--threshold");
      }
    }
  });

  it("keeps the medium result (~2k o200k) inline for both clients, where the specification's 1600 offloaded it", async () => {
    const medium = JSON.stringify((DATASETS.medium_report as () => unknown)());
    for (const client of ["claude-code", "codex"] as const) {
      expect(await offloadsFor(client, medium), client).toBe(false);
    }
    expect(
      await estimateCallResultTokens({ content: [{ type: "text", text: medium }] }, 1600),
    ).toBeGreaterThan(1600);
  });
});

/** One session per arm of the small scenario with `run`; the tool's text as each arm's model saw it. */
async function smallInBothArms(
  client: BenchClient,
  bin: string,
  run: typeof runClaudeSession,
  output: (result: string) => string,
): Promise<void> {
  // The fixture's data is seeded: the same size on every run.
  expect([SMALL_TEXT.length, o200k(SMALL_TEXT)]).toEqual([410, 135]);
  const toolBytes: number[] = [];
  for (const arm of ["alone", "atlatl"] as Arm[]) {
    const dir = mkdtempSync(join(tmpdir(), "atlatl-token-economy-test-"));
    try {
      const session = await run(
        bin,
        small.server(arm, dir, client),
        {
          tool: `mcp__${SERVER_NAME}__${small.tool}`,
          input: small.input(dir),
          question: small.question,
        },
        dir,
      );
      const f = measureSession(session, await small.expected(dir));
      expect(session.errors, arm).toEqual([]);
      expect(f.turns, arm).toBe(2);
      // The upstream's text, byte for byte, as the model received it.
      expect(output(f.firstResult), arm).toBe(SMALL_TEXT);
      expect(f.firstResultTokens, arm).toBe(o200k(f.firstResult));
      expect(f.firstResultChars4, arm).toBe(Math.ceil(f.firstResult.length / 4));
      expect(f.serverToolBytes, arm).toBeGreaterThan(0);
      expect(f.correct, `${arm}: ${f.answer}`).toBe(true);
      toolBytes.push(f.toolBytes);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  // A client with a shell, jq on PATH (the agent's recipes need it): lro_extract is
  // not listed, nor resources, so atlatl-proxy adds no tool-definition bytes.
  expect(toolBytes[1]).toBe(toolBytes[0]);
}

const CLAUDE = claudeBin();
const CODEX = codexBin();

// Both CLIs are capabilities of the machine (.ci/run installs them), so under CI they must be there.
describe("token-economy: the small scenario, alone and through atlatl-proxy", () => {
  it.skipIf(!CLAUDE && !process.env.CI)(
    "Claude Code: two requests per arm, the upstream's text in both, the right answer",
    async () => {
      expect(CLAUDE, "no Claude Code CLI (see .ci/run)").toBeDefined();
      await smallInBothArms("claude-code", CLAUDE as string, runClaudeSession, (r) => r);
    },
    60_000,
  );

  it.skipIf(!CODEX && !process.env.CI)(
    "Codex: two requests per arm, the upstream's text in both, the right answer",
    async () => {
      expect(CODEX, "no Codex CLI (see .ci/run)").toBeDefined();
      await smallInBothArms("codex", CODEX as string, runCodexSession, codexOutput);
    },
    60_000,
  );
});
