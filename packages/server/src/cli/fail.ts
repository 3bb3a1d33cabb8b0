/** Print an error for a person on stderr and exit non-zero. Codes, when present, lead. */
export function fail(err: unknown): never {
  const code = (err as { code?: unknown })?.code;
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`atlatl: ${typeof code === "string" ? `${code}: ` : ""}${message}\n`);
  process.exit(1);
}
