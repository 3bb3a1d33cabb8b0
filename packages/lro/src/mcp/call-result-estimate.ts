/** The estimate of a ready `CallToolResult` (its JSON), for the response boundary's decision. */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { estimateTokens } from "../estimate/estimate.js";

/**
 * Estimated tokens of a whole `CallToolResult` (its JSON), against `threshold`.
 * The texts alone, at chars / 4, decide when they are already above: the JSON
 * is longer still, and non-Latin text only costs more tokens per character (a
 * large text is then never serialized again). Else the JSON is serialized and,
 * at or below the threshold by chars / 4, estimated properly.
 */
export async function estimateCallResultTokens(
  result: CallToolResult,
  threshold: number,
): Promise<number> {
  let chars = 0;
  for (const block of Array.isArray(result.content) ? result.content : []) {
    if (block?.type === "text" && typeof block.text === "string") chars += block.text.length;
  }
  const byText = Math.ceil(chars / 4);
  if (byText > threshold) return byText;
  const json = JSON.stringify(result);
  const byChars = Math.ceil(json.length / 4);
  return byChars > threshold ? byChars : estimateTokens(json);
}
