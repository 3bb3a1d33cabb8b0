/**
 * The scripted agent of the `token-economy` benchmark: one fixed policy, the
 * same whatever sits between the client and the server. Turn 1 calls the tool.
 * On its result the agent uses what it was given: an inline result is answered
 * from directly; a file (an atlatl descriptor, or the client's own "saved to"
 * notice) is queried with one jq command, after reading its first 2 KB when
 * nothing it was shown names the fields the question needs. The command's
 * output is the final answer.
 */
import type { Question } from "./token-economy-data.js";

/** What the agent does next: call a tool, or answer. */
export type Step =
  | { kind: "tool"; name: string; input: Record<string, unknown> }
  | { kind: "answer"; text: string };

export interface AgentTask {
  /** The tool's name as the client presents it (e.g. `mcp__fixture__list_orders`). */
  tool: string;
  input: Record<string, unknown>;
  question: Question;
  /** The client's shell tool and its input for a command. */
  shell: { name: string; input(command: string): Record<string, unknown> };
  /** The tool's own output in a tool result, where the client wraps it (Codex heads it with metadata). */
  output?(result: string): string;
}

/** An Anthropic Messages API message (the fields the agent reads). */
export interface Message {
  role: string;
  content: string | Block[];
}
export interface Block {
  type: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  text?: string;
  content?: string | Block[];
}

/** The text of a tool_result's content, as the model reads it. */
export function resultText(content: string | Block[] | undefined): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((b) => (b.type === "text" ? (b.text ?? "") : "")).join("\n");
}

/** Tool calls and their results, in conversation order. */
export function toolExchanges(messages: Message[]): { name: string; result: string }[] {
  const out: { name: string; result: string }[] = [];
  const names = new Map<string, string>();
  for (const m of messages) {
    if (typeof m.content === "string") continue;
    for (const b of m.content) {
      if (b.type === "tool_use" && b.id) names.set(b.id, b.name ?? "");
      if (b.type === "tool_result" && b.tool_use_id)
        out.push({ name: names.get(b.tool_use_id) ?? "", result: resultText(b.content) });
    }
  }
  return out;
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Where a tool result points to a file, and in which layout. */
interface FileHint {
  file: string;
  /** An atlatl offload file: a header line, then one record per line. */
  lro: boolean;
  /** What the result showed of the data (the client's preview, or the whole descriptor). */
  shown: string;
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === "object" && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function fileHint(text: string): FileHint | undefined {
  // "saved to: FILE" (with a preview) or "saved to FILE." (past the client's token limit).
  const saved = /saved to:?\s+(\S+?)\.?(?:\s|$)/i.exec(text);
  if (saved) {
    const preview = /Preview[^\n]*\n([\s\S]*)/.exec(text);
    return { file: saved[1] as string, lro: false, shown: preview?.[1] ?? "" };
  }
  // A descriptor is one JSON object; other blocks (a resource link) may follow it.
  const d = [text, text.split("\n")[0] ?? ""].map(jsonObject).find((v) => v !== undefined);
  if (!d) return undefined;
  const files = d.files as Record<string, string> | undefined;
  const named = files?.records ?? d.file ?? d.file_path;
  const file = typeof named === "string" ? named : /"(\/[^"]+\.jsonl)"/.exec(text)?.[1];
  return file ? { file, lro: true, shown: text } : undefined;
}

/** Whether `text` names every field the question needs. */
function knowsShape(text: string, q: Question): boolean {
  return q.needs.every((f) => new RegExp(`\\b${f}\\b`).test(text));
}

/** The jq command answering `q` from `hint.file`, given what the agent has seen of it. */
function answerCommand(hint: { file: string; lro: boolean }, peek: string, q: Question): string {
  if (hint.lro) return `tail -n +2 ${quote(hint.file)} | jq -s -c ${quote(q.jq)}`;
  const unwrap = q.path.map((k) => `.${k}`).join("|") || ".";
  const head = peek.trimStart();
  const parse = head.startsWith('{"content":"')
    ? ".content|fromjson|"
    : /^\[\s*\{\s*"type":\s*"text"/.test(head)
      ? ".[0].text|fromjson|"
      : "";
  return `jq -c ${quote(`${parse}${unwrap}|${q.jq}`)} ${quote(hint.file)}`;
}

/** The answer computed from an inline result's text. */
function inlineAnswer(text: string, q: Question): string {
  let v = JSON.parse(text) as unknown;
  const o = v as Record<string, unknown>;
  // structuredContent's text form ({"content": "..."}) as some servers send it.
  if (o && typeof o === "object" && typeof o.content === "string" && Object.keys(o).length === 1)
    v = JSON.parse(o.content);
  for (const k of q.path) v = (v as Record<string, unknown>)[k];
  return JSON.stringify(q.answer(v as unknown[]));
}

/** The agent's next step in a conversation. */
export function nextStep(task: AgentTask, messages: Message[]): Step {
  const ex = toolExchanges(messages).map((e) =>
    task.output ? { ...e, result: task.output(e.result) } : e,
  );
  const first = ex[0];
  if (!first) return { kind: "tool", name: task.tool, input: task.input };
  const hint = fileHint(first.result);
  if (!hint) {
    try {
      return { kind: "answer", text: inlineAnswer(first.result, task.question) };
    } catch {
      // A client that cut the result short (Codex truncates long tool output) leaves no answer.
      return {
        kind: "answer",
        text: `no answer: the result is not whole JSON (${first.result.length} chars)`,
      };
    }
  }
  const shell = (command: string): Step => ({
    kind: "tool",
    name: task.shell.name,
    input: task.shell.input(command),
  });
  if (ex.length === 1) {
    if (knowsShape(hint.shown, task.question))
      return shell(answerCommand(hint, hint.shown, task.question));
    return shell(`head -c 2048 ${quote(hint.file)}`);
  }
  const last = ex[ex.length - 1] as { name: string; result: string };
  if (ex.length === 2 && !knowsShape(hint.shown, task.question))
    return shell(answerCommand(hint, last.result, task.question));
  return { kind: "answer", text: last.result.trim() };
}
