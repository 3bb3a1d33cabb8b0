/** Small helpers for walking parsed JSON without `any`. */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The properties of `obj` whose keys are not in `known`, or undefined when there are none. */
export function unknownProperties(
  obj: JsonObject,
  known: ReadonlySet<string>,
): JsonObject | undefined {
  let out: JsonObject | undefined;
  // for-in over parsed JSON (plain objects, no inherited enumerable keys) avoids the
  // [key, value] arrays of Object.entries on this hot path of every import.
  for (const key in obj) {
    if (known.has(key)) continue;
    out ??= {};
    out[key] = obj[key];
  }
  return out;
}

export function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

export function num(value: unknown): number | null {
  return typeof value === "number" ? value : null;
}

/** RFC 6901 escaping of one pointer segment. */
export function pointerSegment(segment: string | number): string {
  return String(segment).replace(/~/g, "~0").replace(/\//g, "~1");
}
