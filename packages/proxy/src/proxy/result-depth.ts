/**
 * The bound on how deeply an upstream's result may nest. `JSON.parse` reads any
 * depth, but `JSON.stringify` (the SDK's transport, LRO's serialization) recurses
 * and overflows the stack at a few thousand levels: such a result can be neither
 * passed on nor offloaded, so its call fails with an error that says why.
 */
import { INTERNAL_ERROR, rpcError } from "./forward.js";

/** Deepest nesting of arrays and objects passed on (Python's `json` stops near here too). */
export const MAX_RESULT_DEPTH = 1000;

/**
 * The top-level key under which `value` nests deeper than `max` levels (the
 * result itself is level 1), or undefined. Walks iteratively: no recursion to
 * overflow, and it stops at the first value over the bound.
 */
export function tooDeepAt(value: unknown, max: number): string | undefined {
  const stack: [unknown, number, string][] = [[value, 1, ""]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [v, depth, key] = top;
    if (v === null || typeof v !== "object") continue;
    if (depth > max) return key;
    const children = Array.isArray(v) ? v : Object.values(v);
    const names = depth === 1 ? Object.keys(v) : undefined;
    for (const [i, child] of children.entries()) {
      if (child !== null && typeof child === "object")
        stack.push([child, depth + 1, names?.[i] ?? key]);
    }
  }
  return undefined;
}

/** Throws the coded error a call gets when its upstream result nests deeper than the bound. */
export function checkResultDepth(method: string, result: unknown): void {
  const at = tooDeepAt(result, MAX_RESULT_DEPTH);
  if (at === undefined) return;
  throw rpcError(
    INTERNAL_ERROR,
    `atlatl-proxy: RESULT_TOO_DEEP: the upstream's ${method} result nests more than ${MAX_RESULT_DEPTH} levels deep (under "${at}"); JSON that deep cannot be serialized, so it was dropped (the upstream and the session go on). Ask for the data in a flatter form or in smaller parts.`,
    { code: "RESULT_TOO_DEEP", max_depth: MAX_RESULT_DEPTH },
  );
}
