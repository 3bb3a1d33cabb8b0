/**
 * Done-when of the paper-fidelity work: `atlatl-eval run --experiment e1
 * --model openai:<name>` against an OpenAI-compatible server on loopback (a
 * fake one, the real `openai` SDK as client) stops every sample within the
 * 20-message budget, counted at the wire; the report's Tables 3 and 11 state
 * their basis.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../src/cli.js";
import { modelDir, SAMPLES_FILE } from "../src/runner/run.js";
import { readSamples } from "../src/runner/transcript.js";
import {
  type FakeModelServer,
  openaiReply,
  startFakeModelServer,
} from "./fixtures/fake-model-server.js";

let server: FakeModelServer;
let dir: string;

/**
 * A tiny model: answers 8 once it sees an offload descriptor, otherwise asks
 * for the next page, one tool call a turn, forever.
 */
function pagerOrAnswer(body: Record<string, unknown>) {
  const messages = body.messages as { role: string; content: string | null }[];
  const tools = messages.filter((m) => m.role === "tool");
  if (tools.some((m) => (m.content ?? "").includes('"file_path"'))) {
    return openaiReply({ content: "ANSWER: 8" }, undefined, "stop");
  }
  return openaiReply({
    tool_calls: [
      {
        id: `call_${messages.length}`,
        type: "function",
        function: { name: "list_memories", arguments: JSON.stringify({ page: tools.length + 1 }) },
      },
    ],
  });
}

beforeAll(async () => {
  server = await startFakeModelServer();
  server.script(
    "/v1/chat/completions",
    Array.from({ length: 500 }, () => pagerOrAnswer),
  );
  dir = await mkdtemp(join(tmpdir(), "atlatl-eval-openai-cli-"));
});
afterAll(async () => {
  vi.restoreAllMocks();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe("atlatl-eval run --model openai:<name> on loopback", () => {
  it("stops each sample within the 20-message budget; Tables 3 and 11 carry their basis", async () => {
    const out = join(dir, "results");
    const stdout: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((s) => {
      stdout.push(String(s));
      return true;
    });
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const code = await main([
      "node",
      "atlatl-eval",
      "run",
      "--experiment",
      "e1,e4",
      "--model",
      "openai:fake-model",
      "--base-url",
      `${server.url}/v1`,
      "--scales",
      "50",
      "--tasks",
      "1",
      "--out",
      out,
    ]);
    const reported = await main(["node", "atlatl-eval", "report", out]);
    vi.restoreAllMocks();
    expect(code).toBe(0);
    expect(reported).toBe(0);
    expect(stdout.join("")).toContain("ran 11, skipped 0");

    // At the wire: a pager's 9th call carries system + user + 8 x (assistant + tool) = 18
    // messages; its reply and tool result make 20, and no 10th call is made.
    const sizes = server.requests.map((r) => (r.body.messages as unknown[]).length);
    expect(sizes.length).toBeGreaterThan(11);
    expect(Math.max(...sizes)).toBe(18);
    expect(
      server.requests.every((r) => (r.body.messages as { role: string }[])[0]?.role === "system"),
    ).toBe(true);

    const samples = [
      ...(await readSamples(join(out, modelDir("openai:fake-model"), SAMPLES_FILE))).values(),
    ];
    expect(samples).toHaveLength(11);
    for (const s of samples) {
      expect(s.message_limit).toBe(20);
      expect(s.message_count).toBeLessThanOrEqual(20);
    }
    const inline = samples.find((s) => s.condition === "e1-inline");
    expect(inline?.outcome).toBe("message_limit");
    expect(inline?.message_count).toBe(20);
    expect(inline?.limit_note).toContain("message limit 20 reached after 9 model calls");
    expect(samples.find((s) => s.condition === "e1-lro")?.outcome).toBe("answered");

    const md = await readFile(join(out, "report.md"), "utf8");
    const note = (table: string) =>
      (md.split(`**${table}`)[1] ?? "").split("\n").find((l) => l.startsWith("_"));
    expect(note("Table 3.")).toContain("Samples per cell: 1 (the paper: 15)");
    expect(note("Table 3.")).toContain("Message budget: 20 (every message counts");
    expect(note("Table 4.")).toContain("provider-reported usage");
    expect(note("Table 11.")).toContain("averaged over the cells");
    expect(note("Table 11.")).toContain("Message budget: 20");
    expect(md).not.toContain("HARNESS TEST");
  });
});
