/** The figures of one `token-economy` session, from the scripted model's request log. */
import { toolExchanges } from "./token-economy-agent.js";
import { o200k, requestTexts } from "./token-economy-model.js";
import { SERVER_NAME, type SessionRun } from "./token-economy-session.js";

export interface SessionFigures {
  /** The first tool result's text as the model received it. */
  firstResult: string;
  /** The first tool result as the model received it: o200k tokens and chars/4. */
  firstResultTokens: number;
  firstResultChars4: number;
  /** Bytes of all tool definitions in the first request, and of the MCP server's own. */
  toolBytes: number;
  serverToolBytes: number;
  /** Model requests of the session. */
  turns: number;
  /** Sum over requests of the o200k tokens of what each one gives the model (`requestTexts`). */
  sessionInput: number;
  correct: boolean;
  answer: string;
}

/** JSON text in a canonical form, or the text itself when it is not JSON. */
function canonical(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text.trim();
  }
}

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v ?? null));

/** Figures of `run` whose right answer is `expected` (JSON text). */
export function measureSession(run: SessionRun, expected: string): SessionFigures {
  // System prompt and tools repeat in every request: count each distinct text once.
  const cache = new Map<string, number>();
  const tokens = (s: string) => {
    let n = cache.get(s);
    if (n === undefined) {
      n = o200k(s);
      cache.set(s, n);
    }
    return n;
  };
  const last = run.requests[run.requests.length - 1];
  const first = last ? toolExchanges(last.messages)[0] : undefined;
  const text = first?.result ?? "";
  const tools = run.requests[0]?.tools ?? [];
  return {
    firstResult: text,
    firstResultTokens: o200k(text),
    firstResultChars4: Math.ceil(text.length / 4),
    toolBytes: bytes(tools),
    // Claude Code names each MCP tool `mcp__{server}__{tool}`; Codex nests them in a namespace `mcp__{server}`.
    serverToolBytes: bytes(
      tools.filter(
        (t) => t.name === `mcp__${SERVER_NAME}` || t.name.startsWith(`mcp__${SERVER_NAME}__`),
      ),
    ),
    turns: run.requests.length,
    sessionInput: run.requests.reduce(
      (s, r) => s + requestTexts(r).reduce((n, t) => n + tokens(t), 0),
      0,
    ),
    correct: run.errors.length === 0 && canonical(run.result) === canonical(expected),
    answer: run.result,
  };
}
