/**
 * The inline envelopes of a tool result, written here only: the records page
 * (`{count, total?, records, next_cursor?}`), the truncated fallback of records
 * (`{count, records, truncated, total_count, warning}`), and of text (cut at a
 * line break, the warning quoted below it).
 */

import type { AnyCallToolResult, CallToolResult } from "../../protocol/mcp-types.js";

/** A result of one text block. */
export function textResult(t: string): CallToolResult {
  return { content: [{ type: "text", text: t }] };
}

/** The inline page of serialized records; `total` counts every match when known. */
export function recordsEnvelope(
  lines: readonly string[],
  options: { total?: number | undefined; nextCursor?: string | null | undefined } = {},
): string {
  const total = options.total === undefined ? "" : `,"total":${options.total}`;
  const cursor =
    options.nextCursor === undefined ? "" : `,"next_cursor":${JSON.stringify(options.nextCursor)}`;
  return `{"count":${lines.length}${total},"records":[${lines.join(",")}]${cursor}}`;
}

/** The write-failure fallback of records: the leading lines that fit, and the warning. */
export function truncatedRecordsEnvelope(
  lines: readonly string[],
  total: number,
  warning: string,
): string {
  return (
    `{"count":${lines.length},"records":[${lines.join(",")}],"truncated":true,` +
    `"total_count":${total},"warning":${JSON.stringify(warning)}}`
  );
}

/** Cut text to about `tokens` (chars / 4), at a line break when there is one. */
export function cutText(s: string, tokens: number): string {
  const max = Math.max(0, tokens * 4);
  if (s.length <= max) return s;
  const cut = s.lastIndexOf("\n", max);
  return s.slice(0, cut > 0 ? cut : max);
}

/** The write-failure fallback of text: the text kept, the warning quoted below. */
export function truncatedText(kept: string, warning: string): string {
  return `${kept}\n\n> Warning: ${warning}`;
}

/** Every text block of `result` joined (other blocks as their JSON), for a text fallback. */
export function resultText(result: AnyCallToolResult): string {
  return result.content.map((b) => (b.type === "text" ? b.text : JSON.stringify(b))).join("\n");
}
