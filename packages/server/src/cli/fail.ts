/**
 * Print an error for a person on stderr and exit non-zero. Codes, when present,
 * lead, once: Node's errno messages already start with theirs ("ENOENT: no such
 * file ..."), which a second prefix would turn into "ENOENT: ENOENT: ...".
 */
export function fail(err: unknown): never {
  const code = (err as { code?: unknown })?.code;
  const message = err instanceof Error ? err.message : String(err);
  const prefix = typeof code === "string" && !message.startsWith(`${code}:`) ? `${code}: ` : "";
  process.stderr.write(`atlatl: ${prefix}${message}\n`);
  process.exit(1);
}
