/**
 * Scripted agents: deterministic programs that play a strategy through the
 * real tools, so the harness (tools, sandbox, transcripts, scorer, report) is
 * tested without a model. They read the task from the prompt and compute the
 * answer from what the tools return, never from the ground truth: a broken
 * tool shows up as a wrong answer. `scripted:exact` answers what it counted;
 * `scripted:off-by-one` answers one less. These are harness tests, never model
 * results. Like a model under a message budget, they make one tool call a
 * turn (a page, a read, a command), so a strategy that needs more calls than
 * the budget allows runs out of messages. Usage is a chars/4 estimate of each
 * request and reply.
 */
import type { ToolSpec } from "../tools/types.js";
import type { ChatModel, ChatReply, ChatRequest, Message, ToolCall } from "./types.js";

export const SCRIPTED_VARIANTS = ["exact", "off-by-one"] as const;
export type ScriptedVariant = (typeof SCRIPTED_VARIANTS)[number];

type ParsedTask =
  | { kind: "id"; ids: string[] }
  | { kind: "filter"; namespace: string; op: string; priority: number; product: string };

function parseTask(prompt: string): ParsedTask {
  const f = prompt.match(
    /namespace (\S+) have priority (>=|<=|==|>|<) (\d) and mention product (.+?) in their content\?/,
  );
  if (f) {
    return {
      kind: "filter",
      namespace: f[1] as string,
      op: f[2] as string,
      priority: Number(f[3]),
      product: f[4] as string,
    };
  }
  return {
    kind: "id",
    ids: [...prompt.matchAll(/^- ([0-9a-f-]{36})$/gm)].map((m) => m[1] as string),
  };
}

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

interface Rec {
  id: string;
  namespace?: string;
  extensions?: { priority?: number };
  content?: string;
}

function countMatches(task: ParsedTask, records: readonly Rec[]): number {
  if (task.kind === "id") {
    const have = new Set(records.map((r) => r.id));
    return task.ids.filter((id) => have.has(id)).length;
  }
  const cmp: Record<string, (a: number, b: number) => boolean> = {
    ">": (a, b) => a > b,
    ">=": (a, b) => a >= b,
    "<": (a, b) => a < b,
    "<=": (a, b) => a <= b,
    "==": (a, b) => a === b,
  };
  return records.filter(
    (r) =>
      r.namespace === task.namespace &&
      (cmp[task.op] as (a: number, b: number) => boolean)(
        r.extensions?.priority ?? Number.NaN,
        task.priority,
      ) &&
      (r.content ?? "").toLowerCase().includes(task.product.toLowerCase()),
  ).length;
}

/** The jq filter selecting the task's records (shared by the bash and lro_extract plays). */
function jqSelect(task: ParsedTask): string {
  if (task.kind === "id") return "select(.id as $x | any($ids[]; . == $x))";
  return `select(.namespace == $ns and .extensions.priority ${task.op} $pr and (.content | ascii_downcase | contains($p | ascii_downcase)))`;
}

function jqParams(task: ParsedTask): Record<string, unknown> {
  return task.kind === "id"
    ? { ids: task.ids }
    : { ns: task.namespace, pr: task.priority, p: task.product };
}

function bashCommand(task: ParsedTask, file: string): string {
  if (task.kind === "id") {
    return `tail -n +2 ${quote(file)} | jq -r .id | grep -c -x -F ${task.ids.map((id) => `-e ${id}`).join(" ")}`;
  }
  return `tail -n +2 ${quote(file)} | jq -c --arg ns ${quote(task.namespace)} --argjson pr ${task.priority} --arg p ${quote(task.product)} ${quote(jqSelect(task))} | wc -l`;
}

const firstInt = (text: string) => Number(text.match(/-?\d+/)?.[0] ?? Number.NaN);
const estimate = (v: unknown) => Math.ceil(JSON.stringify(v).length / 4);

interface Seen {
  call: ToolCall;
  result: Extract<Message, { role: "tool" }>;
}

function history(messages: readonly Message[]): Seen[] {
  const calls = new Map<string, ToolCall>();
  const out: Seen[] = [];
  for (const m of messages) {
    if (m.role === "assistant") for (const c of m.toolCalls) calls.set(c.id, c);
    if (m.role === "tool") {
      const call = calls.get(m.toolCallId);
      if (call) out.push({ call, result: m });
    }
  }
  return out;
}

type Step = { call: [string, Record<string, unknown>] } | { answer: number };

function recordsFromLines(texts: readonly string[]): Rec[] {
  const out: Rec[] = [];
  for (const t of texts) {
    for (const line of t.split("\n")) {
      if (!line.startsWith("{")) continue;
      const v = JSON.parse(line) as Rec & { type?: string };
      if (v.type !== "lro_header") out.push(v);
    }
  }
  return out;
}

function offloadPlay(
  task: ParsedTask,
  d: Record<string, unknown>,
  tools: Set<string>,
  seen: Seen[],
): Step {
  const file = d.file_path as string;
  const of = (name: string) => seen.filter((s) => s.call.name === name);
  if (tools.has("bash")) {
    const done = of("bash");
    if (done.length === 0) return { call: ["bash", { command: bashCommand(task, file) }] };
    return { answer: firstInt(done[done.length - 1]?.result.content ?? "") };
  }
  if (tools.has("lro_extract")) {
    const done = of("lro_extract");
    if (done.length === 0) {
      return {
        call: [
          "lro_extract",
          { file_path: file, query: `${jqSelect(task)} | .id`, params: jqParams(task), raw: true },
        ],
      };
    }
    const text = done[done.length - 1]?.result.content ?? "";
    return { answer: text.split("\n").filter((l) => /^[0-9a-f-]{36}$/.test(l)).length };
  }
  // Read the file from line 2 (after the header), following each cut's continuation.
  const reads = of("read_file");
  const last = reads[reads.length - 1]?.result.content ?? "";
  const next = reads.length === 0 ? 2 : Number(last.match(/continue with offset=(\d+)/)?.[1] ?? 0);
  if (next > 0) return { call: ["read_file", { path: file, offset: next, limit: 500 }] };
  return { answer: countMatches(task, recordsFromLines(reads.map((r) => r.result.content))) };
}

/**
 * Page through `list_memories` one page a turn. With `python_exec` (ID lookup),
 * accumulate each page's ids in the persistent interpreter right after reading
 * it (the paper's `results.extend(page_data)`), then ask it for the count.
 */
function pagedPlay(task: ParsedTask, tools: Set<string>, seen: Seen[]): Step {
  const pages = seen
    .filter((s) => s.call.name === "list_memories" && !s.result.isError)
    .map(
      (s) => JSON.parse(s.result.content) as { page: number; total_pages: number; records: Rec[] },
    );
  const total = pages[0]?.total_pages ?? 1;
  const py = seen.filter((s) => s.call.name === "python_exec");
  if (tools.has("python_exec") && task.kind === "id") {
    const latest = pages[pages.length - 1];
    if (latest && py.length < pages.length) {
      const ids = JSON.stringify(latest.records.map((r) => r.id));
      const code = py.length === 0 ? `seen = set(${ids})` : `seen.update(${ids})`;
      return { call: ["python_exec", { code }] };
    }
    if (pages.length === total) {
      if (py.length === pages.length) {
        return {
          call: ["python_exec", { code: `print(len(seen & set(${JSON.stringify(task.ids)})))` }],
        };
      }
      return { answer: firstInt(py[py.length - 1]?.result.content ?? "") };
    }
  }
  if (pages.length < total) return { call: ["list_memories", { page: pages.length + 1 }] };
  return {
    answer: countMatches(
      task,
      pages.flatMap((p) => p.records),
    ),
  };
}

function decide(req: ChatRequest): Step {
  const first = req.messages[0];
  const task = parseTask(first?.role === "user" ? first.content : "");
  const tools = new Set(req.tools.map((t: ToolSpec) => t.name));
  const seen = history(req.messages);
  const list = seen.find((s) => s.call.name === "list_memories");
  if (!list) {
    const paged = Object.keys(
      (req.tools.find((t) => t.name === "list_memories")?.parameters.properties ?? {}) as object,
    ).includes("page");
    return { call: ["list_memories", paged ? { page: 1 } : {}] };
  }
  const body = JSON.parse(list.result.content) as Record<string, unknown>;
  if (typeof body.file_path === "string") return offloadPlay(task, body, tools, seen);
  return pagedPlay(task, tools, seen);
}

export function scriptedModel(id: string, variant: ScriptedVariant): ChatModel {
  return {
    id,
    scripted: true,
    async complete(req: ChatRequest): Promise<ChatReply> {
      const step = decide(req);
      const turn = req.messages.filter((m) => m.role === "assistant").length;
      const reply: Omit<ChatReply, "usage"> =
        "answer" in step
          ? {
              text: `ANSWER: ${step.answer - (variant === "off-by-one" ? 1 : 0)}`,
              toolCalls: [],
              stopReason: "end_turn",
            }
          : {
              text: "",
              stopReason: "tool_use",
              toolCalls: [
                {
                  id: `call_${turn}`,
                  name: step.call[0],
                  arguments: step.call[1],
                  rawArguments: JSON.stringify(step.call[1]),
                },
              ],
            };
      return {
        ...reply,
        usage: {
          input: estimate([req.system, req.messages, req.tools]),
          output: estimate(reply),
          cacheRead: 0,
          cacheWrite: 0,
        },
      };
    },
  };
}
