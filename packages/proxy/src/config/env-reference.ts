/**
 * Env references in header values: `${NAME}` and `${env:NAME}` (the spellings
 * MCP clients use). The proxy replaces them from its environment at start;
 * `install` writes a client's header secrets as such references (Codex's
 * `bearer_token_env_var`, a JSON client's `Bearer ${TOKEN}`), so the secret stays
 * in the environment, not in the config.
 */
const REFERENCE = String.raw`\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}`;
const ANY_REFERENCE = new RegExp(REFERENCE, "g");
const WHOLE_REFERENCE = new RegExp(`^${REFERENCE}$`);
const BEARER_REFERENCE = new RegExp(`^Bearer ${REFERENCE}$`);

/** A reference to `name`, as install writes it. */
export function envReference(name: string): string {
  return `\${${name}}`;
}

/** The variable a value names when it is exactly one reference, e.g. `${TOKEN}`. */
export function referencedVariable(value: string): string | undefined {
  return WHOLE_REFERENCE.exec(value)?.[1];
}

/** The variable of a value `Bearer ${TOKEN}`. */
export function bearerVariable(value: string): string | undefined {
  return BEARER_REFERENCE.exec(value)?.[1];
}

/** `header` with its env references replaced; throws naming a variable that is not set. */
export function expandHeaderEnv(
  header: string,
  env: Record<string, string | undefined> = process.env,
): string {
  return header.replace(ANY_REFERENCE, (_ref, name: string) => {
    const value = env[name];
    if (value === undefined) {
      throw new Error(
        `--header ${header.split(":")[0]}: the environment variable ${name} is not set`,
      );
    }
    return value;
  });
}
