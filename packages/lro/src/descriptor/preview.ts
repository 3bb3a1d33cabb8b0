/**
 * A short preview of real data for a generic descriptor: the value with long
 * strings cut, arrays and objects shortened and deep nesting elided, so the
 * model sees the shape and the kind of values without paying for them.
 */
import { jsonValue } from "./infer-schema.js";

/** Characters kept of a string value. */
const MAX_STRING = 48;
/** Elements kept of an array, keys of an object. */
const MAX_ITEMS = 1;
const MAX_KEYS = 12;
/** Nesting shown; deeper values become `"…"`. */
const MAX_DEPTH = 3;

/** `value` shortened for a preview (a fresh JSON value). */
export function previewValue(raw: unknown, depth = 0): unknown {
  const value = jsonValue(raw);
  if (typeof value === "string") {
    return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  }
  if (value === null || typeof value !== "object") return value ?? null;
  if (depth >= MAX_DEPTH) return "…";
  if (Array.isArray(value)) {
    const kept = value.slice(0, MAX_ITEMS).map((v) => previewValue(v, depth + 1));
    return value.length > MAX_ITEMS ? [...kept, `…${value.length - MAX_ITEMS} more`] : kept;
  }
  const out: Record<string, unknown> = {};
  const entries = Object.entries(value as Record<string, unknown>).filter(
    ([, v]) => v !== undefined && typeof v !== "function" && typeof v !== "symbol",
  );
  for (const [k, v] of entries.slice(0, MAX_KEYS)) out[k] = previewValue(v, depth + 1);
  if (entries.length > MAX_KEYS) out["…"] = `${entries.length - MAX_KEYS} more keys`;
  return out;
}
