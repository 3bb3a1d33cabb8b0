/**
 * The bound on how deeply an upstream's result may nest. `JSON.parse` reads any
 * depth, but `JSON.stringify` (the SDK's transport, LRO's serialization) recurses
 * and overflows the stack at a few thousand levels. A tool result nesting deeper
 * is loudly truncated: what lies below the bound is replaced by a marker and a
 * warning says so; any other result, which has no place for a warning, fails its
 * call with an error that says why.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { INTERNAL_ERROR, rpcError } from "./forward.js";

/** Deepest nesting of arrays and objects passed on (Python's `json` stops near here too). */
export const MAX_RESULT_DEPTH = 1000;

/** What stands in place of each array or object nested deeper than the bound. */
export const DEEP_CUT_MARKER = `[cut: nested deeper than ${MAX_RESULT_DEPTH} levels]`;

/** What {@link cutDeeperThan} replaced. */
interface DeepCut {
  /** Arrays and objects replaced by the marker. */
  count: number;
  /** The top-level keys they were under, in the order met. */
  under: string[];
}

type Container = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is Container => v !== null && typeof v === "object";

/**
 * Replace, in place, every array and object of `value` nested deeper than `max`
 * levels (the value itself is level 1) by {@link DEEP_CUT_MARKER}. Walks with an
 * explicit stack: no recursion to overflow, however deep `value` goes.
 */
function cutDeeperThan(value: unknown, max: number): DeepCut {
  const cut: DeepCut = { count: 0, under: [] };
  if (!isContainer(value)) return cut;
  const stack: [Container, number, string][] = [[value, 1, ""]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [v, depth, under] = top;
    const keys: (string | number)[] = Array.isArray(v) ? [...v.keys()] : Object.keys(v);
    for (const key of keys) {
      const child = (v as Record<string | number, unknown>)[key];
      if (!isContainer(child)) continue;
      const childUnder = depth === 1 ? String(key) : under;
      if (depth + 1 > max) {
        (v as Record<string | number, unknown>)[key] = DEEP_CUT_MARKER;
        cut.count++;
        if (!cut.under.includes(childUnder)) cut.under.push(childUnder);
      } else {
        stack.push([child, depth + 1, childUnder]);
      }
    }
  }
  return cut;
}

/** What the upstream's result nests too deeply, as the start of a message. */
const tooDeep = (method: string, cut: DeepCut) =>
  `atlatl-proxy: RESULT_TOO_DEEP: the upstream's ${method} result nests more than ${MAX_RESULT_DEPTH} levels deep (under ${cut.under.map((k) => `"${k}"`).join(", ")}); JSON that deep cannot be serialized`;

/**
 * A tool result within the bound: `result` itself when it is, else with what lies
 * deeper cut (see {@link cutDeeperThan}) and a text block appended that warns
 * what was cut and why; `warning` is that text, for a descriptor if it is offloaded.
 */
export function cutDeepToolResult(result: CallToolResult): {
  result: CallToolResult;
  warning?: string;
} {
  const cut = cutDeeperThan(result, MAX_RESULT_DEPTH);
  if (cut.count === 0) return { result };
  const warning = `${tooDeep("tools/call", cut)}, so ${cut.count} ${cut.count === 1 ? "value" : "values"} nested deeper ${cut.count === 1 ? "was" : "were"} replaced by "${DEEP_CUT_MARKER}"; the rest is as the upstream sent it. Ask for the data in a flatter form or in smaller parts to see what was cut.`;
  const content = Array.isArray(result.content) ? result.content : [];
  return {
    result: { ...result, content: [...content, { type: "text", text: `Warning: ${warning}` }] },
    warning,
  };
}

/** Throws the coded error a call gets when its (non-tool) upstream result nests deeper than the bound. */
export function checkResultDepth(method: string, result: unknown): void {
  const cut = cutDeeperThan(result, MAX_RESULT_DEPTH);
  if (cut.count === 0) return;
  throw rpcError(
    INTERNAL_ERROR,
    `${tooDeep(method, cut)}, so it was dropped (the upstream and the session go on). Ask for the data in a flatter form or in smaller parts.`,
    { code: "RESULT_TOO_DEEP", max_depth: MAX_RESULT_DEPTH },
  );
}
