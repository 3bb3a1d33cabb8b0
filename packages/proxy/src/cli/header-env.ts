/**
 * Env references in `--header` values: `${NAME}` and `${env:NAME}` are replaced
 * from the proxy's environment at start. `install` writes a client's header
 * secrets as such references (Codex's `bearer_token_env_var`, a JSON client's
 * `Bearer ${TOKEN}`), so the secret stays in the environment, not in the config.
 */
const ENV_REF = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `header` with its env references replaced; throws naming a variable that is not set. */
export function expandHeaderEnv(
  header: string,
  env: Record<string, string | undefined> = process.env,
): string {
  return header.replace(ENV_REF, (_ref, name: string) => {
    const value = env[name];
    if (value === undefined) {
      throw new Error(
        `--header ${header.split(":")[0]}: the environment variable ${name} is not set`,
      );
    }
    return value;
  });
}
