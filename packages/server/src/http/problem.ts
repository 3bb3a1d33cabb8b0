import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** RFC 9457 problem details, the error body of every HTTP route but `/mcp`'s JSON-RPC. */
interface Problem {
  type?: string;
  title: string;
  status: number;
  detail?: string;
  /** The failure's code (`ERROR_CODES`: `INVALID_ARGUMENT`, `UNAVAILABLE`, `INTERNAL`, …), for a program to branch on. */
  code?: string;
  /** The request field at fault (query parameter or body member). */
  field?: string;
}

const PROBLEM_MIME = "application/problem+json";

/** A failure the client cannot act on: a generic text, the detail is the operator's (the log). */
export const INTERNAL_PROBLEM: Problem = {
  title: "Internal Server Error",
  status: 500,
  code: "INTERNAL",
  detail: "The request failed on the server.",
};

/** A problem+json response. */
export function problem(p: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ type: "about:blank", ...p }), {
    status: p.status,
    headers: { "content-type": PROBLEM_MIME, ...headers },
  });
}

/** The same, through Hono's context (keeps headers set by earlier middleware). */
export function problemResponse(c: Context, p: Problem): Response {
  c.header("content-type", PROBLEM_MIME);
  return c.body(JSON.stringify({ type: "about:blank", ...p }), p.status as ContentfulStatusCode);
}
