/**
 * System prompts. Every LRO condition of one experiment gets the same prompt
 * (only the descriptor differs); inline conditions get no LRO instruction; the
 * guided variant (E2g) adds the paper's "consult line_schema, scan jq_recipes,
 * follow guidance before querying".
 */
import type { PromptKind } from "./conditions.js";

const BASE =
  "You are an assistant with tools over a memory store. Use the tools to find the answer; do not guess. Be efficient.";

const LRO =
  "Large tool results may be offloaded: the tool then writes the full result to a JSONL file on disk and returns a descriptor pointing at it instead of the data. Use the tools you have to work with that file.";

const GUIDED =
  "Before querying an offloaded file, consult the descriptor's line_schema to learn the record fields, scan its jq_recipes for a matching extraction query, and follow its guidance.";

export function systemPrompt(kind: PromptKind): string {
  if (kind === "plain") return BASE;
  if (kind === "lro") return `${BASE}\n\n${LRO}`;
  return `${BASE}\n\n${LRO}\n\n${GUIDED}`;
}
