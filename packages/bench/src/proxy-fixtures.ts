/** Inputs of the `proxy` benchmark: a text result of a given size, as an upstream sends it. */
import type { CallToolResult } from "@atlatl/lro/mcp";

/** A `CallToolResult` with one text block of about `bytes` bytes of log-like lines. */
export function textResult(bytes: number): CallToolResult {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `2026-11-23T02:${String(i % 60).padStart(2, "0")}:00Z INFO request ${i} handled in ${i % 97} ms by worker-${i % 8} ok`;
    lines.push(line);
    size += line.length + 1;
  }
  // Parsed from JSON, as the proxy receives it (flat strings, no ropes).
  return JSON.parse(JSON.stringify({ content: [{ type: "text", text: lines.join("\n") }] }));
}
