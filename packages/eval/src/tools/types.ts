/** The tool seam: what the model is offered and what a call returns. */

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ToolOutput {
  content: string;
  isError: boolean;
}

export interface Tool {
  spec: ToolSpec;
  run(args: Record<string, unknown>): Promise<ToolOutput>;
}

/** Longest tool output shown to the model; the rest is cut with a note. */
export const MAX_TOOL_OUTPUT_CHARS = 16_000;

export function ok(content: string): ToolOutput {
  return { content, isError: false };
}

export function fail(code: string, message: string): ToolOutput {
  return { content: `${code}: ${message}`, isError: true };
}

export function clip(text: string, max = MAX_TOOL_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[output truncated: ${text.length - max} more characters not shown]`;
}
