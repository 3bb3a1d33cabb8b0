/**
 * A wrapped HTTP server's header values become the proxy's `-H` arguments, and
 * every local user can read a command line (`ps`). A literal value (a pasted
 * `Bearer sk-…`) therefore goes into the entry's `env`, under a variable of
 * ours, and the argument names it (`-H "Authorization: ${ATLATL_PROXY_HEADER_AUTHORIZATION}"`),
 * which the proxy expands at start. A value that already refers to the
 * environment (`${TOKEN}`, `${env:TOKEN}`, `${input:…}`, `$TOKEN`) is copied as
 * written. Unwrapping puts the literal back and takes our variables out.
 */
import { envReference, referencedVariable } from "../config/env-reference.js";
import type { ServerTarget } from "./wrap-rule.js";

const PREFIX = "ATLATL_PROXY_HEADER_";

/** A reference the client or the proxy expands: `${…}` or `$NAME`. */
const REFERENCE = /\$\{[^}]*\}|\$[A-Za-z_]/;

type Env = Record<string, string>;

function variableFor(header: string, value: string, env: Env): string {
  const base = `${PREFIX}${header.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}_${n}`;
    if (env[name] === undefined || env[name] === value) return name;
  }
}

/**
 * `target` with each literal header value replaced by a reference to a variable
 * of ours, and the entry's env with those variables set (undefined when no
 * header is literal).
 */
export function hideLiteralHeaders(
  target: ServerTarget,
  env: Env,
): { target: ServerTarget; env?: Env } {
  if (target.kind !== "http") return { target };
  const headers: Record<string, string> = {};
  const next: Env = { ...env };
  let moved = false;
  for (const [name, value] of Object.entries(target.headers)) {
    if (REFERENCE.test(value)) {
      headers[name] = value;
      continue;
    }
    const variable = variableFor(name, value, next);
    next[variable] = value;
    headers[name] = envReference(variable);
    moved = true;
  }
  const hidden: ServerTarget = { ...target, headers };
  return moved ? { target: hidden, env: next } : { target: hidden };
}

/**
 * The inverse: `target` with our variables' values back in its headers, and
 * the entry's env without them (`env: undefined` when nothing else is left;
 * absent from the result when no header was ours).
 */
export function revealLiteralHeaders(
  target: ServerTarget,
  env: Env,
): { target: ServerTarget; env?: Env | undefined } {
  if (target.kind !== "http") return { target };
  const headers: Record<string, string> = {};
  const rest: Env = { ...env };
  let revealed = false;
  for (const [name, value] of Object.entries(target.headers)) {
    const variable = referencedVariable(value);
    const literal = variable?.startsWith(PREFIX) ? env[variable] : undefined;
    if (variable === undefined || literal === undefined) {
      headers[name] = value;
      continue;
    }
    headers[name] = literal;
    delete rest[variable];
    revealed = true;
  }
  const shown: ServerTarget = { ...target, headers };
  if (!revealed) return { target: shown };
  return { target: shown, env: Object.keys(rest).length > 0 ? rest : undefined };
}
