/**
 * The agent's final answer: the last `ANSWER: n` of its last reply, else the
 * last integer in it. The last reply is the last assistant message, as Inspect
 * AI scores `output.completion`: a sample cut by the message budget keeps what
 * its last reply said (usually nothing, as it was calling a tool).
 */
import type { Message } from "../models/types.js";

export function finalText(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === "assistant") return m.text;
  }
  return undefined;
}

export function parseAnswer(text: string | undefined): number | null {
  if (text === undefined) return null;
  const tagged = [...text.matchAll(/ANSWER\s*[:=]\s*\**\s*(-?\d[\d,]*)/gi)];
  const hit = tagged.length
    ? tagged[tagged.length - 1]?.[1]
    : [...text.matchAll(/-?\d[\d,]*/g)].pop()?.[0];
  if (hit === undefined) return null;
  const n = Number(hit.replace(/,/g, ""));
  return Number.isFinite(n) ? n : null;
}
