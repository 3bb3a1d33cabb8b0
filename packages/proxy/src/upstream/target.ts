import { redactUrl } from "@atlatl/lro/node";

/** Where the upstream MCP server is: a command to spawn, or a URL. */
export type UpstreamTarget =
  | { kind: "stdio"; command: string; args: string[]; cwd?: string; env?: Record<string, string> }
  | { kind: "http"; url: URL; headers: Record<string, string> };

/** A short description for messages (no header values nor the URL's secrets). */
export function describeTarget(target: UpstreamTarget): string {
  return target.kind === "stdio"
    ? [target.command, ...target.args].join(" ")
    : redactUrl(target.url);
}

/** Parse `--header "Name: value"` into a header map; throws a message naming the bad one. */
export function parseHeaders(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const i = v.indexOf(":");
    const name = i > 0 ? v.slice(0, i).trim() : "";
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new Error(`--header ${JSON.stringify(v)}: expected "Name: value"`);
    }
    out[name] = v.slice(i + 1).trim();
  }
  return out;
}
