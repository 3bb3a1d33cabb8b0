/**
 * inject_context's formatting half: recalled memories as one Markdown block
 * that fits a token budget. Recall (the pre-budget set, which LRO judges) and
 * formatting stay separate so the MCP layer can offload the former and return
 * the latter.
 */

import { estimateTokens } from "@atlatl/lro";
import { CONTEXT_BUDGET } from "../model/limits.js";
import type { Memory } from "../model/memory.js";
import { invalidArgument } from "./errors.js";

/** Default budget of inject_context, in tokens. */
export const DEFAULT_CONTEXT_BUDGET = CONTEXT_BUDGET.default;

/** Largest accepted budget, in tokens. */
const MAX_CONTEXT_BUDGET = CONTEXT_BUDGET.max;

/** A cut memory keeps at least this many content characters, else it is left out. */
const MIN_TRUNCATED_CHARS = 80;

const HEADING = "# Relevant memories\n";
const NOTHING = `${HEADING}\nNo matching memories.\n`;

/** A token estimate of a string. */
export type EstimateTokens = (text: string) => number | Promise<number>;

export interface ContextOptions {
  /**
   * Token estimate of a string; default LRO's (`estimateTokens`: chars / 4 for
   * Latin script, the tokenizer for CJK and other scripts, where chars / 4
   * undercounts several times over), the one that decides offloading.
   */
  estimateTokens?: EstimateTokens;
}

export interface ContextResult {
  /** The Markdown block; its estimate is at most the budget. */
  context: string;
  /** How many memories it holds (a cut one counts). */
  included: number;
}

function confidenceText(memory: Memory): string {
  const c = memory.provenance?.confidence;
  return typeof c === "number" ? c.toFixed(2) : "unknown";
}

function sectionHead(memory: Memory): string {
  const title = memory.title.replace(/\s+/g, " ").trim();
  return (
    `\n## ${title}\n` +
    `namespace: \`${memory.namespace}\` · type: ${memory.memory_type} · ` +
    `confidence: ${confidenceText(memory)} · id: \`${memory.id}\`\n\n`
  );
}

function omitted(count: number): string {
  return `\n_${count} more ${count === 1 ? "memory" : "memories"} left out to fit the budget._\n`;
}

/** Cut `content` at a word boundary near `chars`, marking the cut. */
function cut(content: string, chars: number): string {
  let slice = content.slice(0, Math.max(0, chars));
  // Never split a surrogate pair (an emoji would become a replacement character).
  if (/[\uD800-\uDBFF]$/.test(slice)) slice = slice.slice(0, -1);
  const space = slice.search(/\s\S*$/);
  const body = space > chars * 0.6 ? slice.slice(0, space) : slice;
  return `${body.trimEnd()} …`;
}

/** Formats recalled memories as a Markdown context block within a token budget. */
export class ContextService {
  private readonly estimate: EstimateTokens;
  constructor(options: ContextOptions = {}) {
    this.estimate = options.estimateTokens ?? estimateTokens;
  }

  /**
   * A Markdown block: a `# Relevant memories` heading, then per memory (best
   * first) a `## title` section with namespace, type, confidence and id and the
   * content. Memories are added in order while they fit `budgetTokens`; the
   * first that does not fit is cut at a word boundary when a useful part fits,
   * and a closing line says how many were left out.
   */
  async format(
    hits: readonly { memory: Memory; score?: number }[] | readonly Memory[],
    budgetTokens: number = DEFAULT_CONTEXT_BUDGET,
  ): Promise<ContextResult> {
    if (
      typeof budgetTokens !== "number" ||
      !Number.isInteger(budgetTokens) ||
      budgetTokens < CONTEXT_BUDGET.min ||
      budgetTokens > MAX_CONTEXT_BUDGET
    ) {
      throw invalidArgument(
        "budget_tokens",
        `budget_tokens must be an integer from ${CONTEXT_BUDGET.min} to ${MAX_CONTEXT_BUDGET}; got ${JSON.stringify(budgetTokens)}.`,
      );
    }
    const memories = hits.map((h) => ("memory" in h ? h.memory : h));
    const fits = async (text: string) => (await this.estimate(text)) <= budgetTokens;
    if (memories.length === 0)
      return { context: (await fits(NOTHING)) ? NOTHING : "", included: 0 };
    if (!(await fits(HEADING))) return { context: "", included: 0 };

    let context = HEADING;
    let included = 0;
    for (const [index, memory] of memories.entries()) {
      const later = memories.length - index - 1;
      // Room is kept for the closing line, in case the later memories do not fit.
      const closing = later > 0 ? omitted(later) : "";
      const section = `${sectionHead(memory)}${memory.content.trimEnd()}\n`;
      if (await fits(context + section + closing)) {
        context += section;
        included++;
        continue;
      }
      const partial = await this.cutToFit(context, memory, closing, budgetTokens);
      if (partial !== undefined) {
        context += partial + closing;
        included++;
      } else if (await fits(context + omitted(later + 1))) {
        context += omitted(later + 1);
      }
      break;
    }
    return { context, included };
  }

  /**
   * The longest cut of `memory`'s section that fits after `context` with room
   * for the closing line, or undefined when less than a useful part fits.
   */
  private async cutToFit(
    context: string,
    memory: Memory,
    closing: string,
    budgetTokens: number,
  ): Promise<string | undefined> {
    const head = sectionHead(memory);
    const content = memory.content.trimEnd();
    const fits = async (chars: number) =>
      (await this.estimate(`${context}${head}${cut(content, chars)}\n${closing}`)) <= budgetTokens;
    let lo = 0;
    let hi = content.length;
    // Largest n with fits(n); the estimate grows with n, so binary search applies.
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (await fits(mid)) lo = mid;
      else hi = mid - 1;
    }
    if (lo < Math.min(MIN_TRUNCATED_CHARS, content.length) || !(await fits(lo))) return undefined;
    return `${head}${cut(content, lo)}\n`;
  }
}
