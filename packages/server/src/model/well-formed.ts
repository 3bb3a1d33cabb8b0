/**
 * Text as the store can keep it. JSON lets a client send lone UTF-16 surrogates
 * (`"\ud800"`); UTF-8 cannot encode them, so SQLite would keep U+FFFD while the
 * acknowledgement echoed the surrogate. Replacing them with U+FFFD where a memory
 * is built makes the acknowledgement and every later read the same value.
 */

declare global {
  // ES2024 (Node 20+); the project's lib is ES2023.
  interface String {
    isWellFormed(): boolean;
    toWellFormed(): string;
  }
}

/** `value` with every string in it (keys too) well-formed; unchanged parts are kept as they are. */
export function wellFormed<T>(value: T): T {
  if (typeof value === "string") {
    return (value.isWellFormed() ? value : value.toWellFormed()) as T;
  }
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const fixed = wellFormed(item);
      if (fixed === item) return;
      out ??= [...value];
      out[i] = fixed;
    });
    return (out ?? value) as T;
  }
  if (value !== null && typeof value === "object") {
    let out: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const fixedKey = wellFormed(key);
      const fixed = wellFormed(item);
      if (fixed !== item || fixedKey !== key) {
        out ??= { ...(value as Record<string, unknown>) };
        if (fixedKey !== key) delete out[key];
        out[fixedKey] = fixed;
      }
    }
    return (out ?? value) as T;
  }
  return value;
}
