/**
 * The one rule by which a client's MCP server entry is wrapped with atlatl-proxy
 * and unwrapped again. A wrapped entry is a stdio entry whose command line is
 *
 *     <proxy> [--threshold N] [--output-dir DIR] [--[no-]resources] -- <command> [args...]
 *     <proxy> [--threshold N] [--output-dir DIR] [--[no-]resources] --url <url> [-H "Name: value"]...
 *
 * so the original server can always be read back from the entry itself (with
 * its env: a literal header value is there, see header-secrets.ts). An env
 * reference (`${TOKEN}`, `${env:TOKEN}`) stays a reference, expanded by the
 * client or by the proxy at start, never here.
 */
import { basename } from "node:path";

/** Where a server runs, as the proxy's command line names it. */
export type ServerTarget =
  | { kind: "stdio"; command: string; args: string[] }
  | { kind: "http"; url: string; headers: Record<string, string> };

/** How the proxy itself is started: a command and the arguments before its own options. */
export interface ProxyLauncher {
  command: string;
  args: string[];
}

/** Proxy options written into each wrapped entry. */
export interface WrapOptions {
  thresholdTokens?: number | undefined;
  /** The offload directory, named so it is the one install granted whatever the client's env (TMPDIR). */
  outputDir?: string | undefined;
  /** `--resources` (true) or `--no-resources` (false); absent: the proxy decides per client. */
  resources?: boolean | undefined;
}

const PROXY_NAMES = new Set(["atlatl-proxy", "atlatl-proxy.js"]);

/** The proxy's command line for `target`, launcher first. */
export function wrappedCommandLine(
  launcher: ProxyLauncher,
  target: ServerTarget,
  options: WrapOptions,
): { command: string; args: string[] } {
  const opts = [
    ...(options.thresholdTokens !== undefined
      ? ["--threshold", String(options.thresholdTokens)]
      : []),
    ...(options.outputDir !== undefined ? ["--output-dir", options.outputDir] : []),
    ...(options.resources !== undefined
      ? [options.resources ? "--resources" : "--no-resources"]
      : []),
  ];
  const upstream =
    target.kind === "stdio"
      ? ["--", target.command, ...target.args]
      : [
          "--url",
          target.url,
          ...Object.entries(target.headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
        ];
  return { command: launcher.command, args: [...launcher.args, ...opts, ...upstream] };
}

/** How many leading items of `args` start the proxy (0 or 1), or undefined when `command` is not it. */
function launcherArgs(command: string, args: readonly string[]): number | undefined {
  if (PROXY_NAMES.has(basename(command))) return 0;
  const first = args[0];
  return first !== undefined && PROXY_NAMES.has(basename(first)) ? 1 : undefined;
}

/** A wrapped entry's command line read back: the proxy options and the server it fronts. */
interface UnwrappedCommandLine {
  target: ServerTarget;
  options: WrapOptions;
}

/** Read a command line written by {@link wrappedCommandLine}; undefined when it is not one. */
export function readWrappedCommandLine(
  command: unknown,
  args: unknown,
): UnwrappedCommandLine | undefined {
  if (typeof command !== "string") return undefined;
  const list = Array.isArray(args) && args.every((a) => typeof a === "string") ? args : [];
  const skip = launcherArgs(command, list);
  if (skip === undefined) return undefined;
  const options: WrapOptions = {};
  let url: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = skip; i < list.length; i++) {
    const a = list[i] as string;
    const next = list[i + 1];
    if (a === "--") {
      const [cmd, ...rest] = list.slice(i + 1);
      if (cmd === undefined) return undefined;
      return { target: { kind: "stdio", command: cmd, args: rest }, options };
    }
    if (a === "--resources" || a === "--no-resources") {
      options.resources = a === "--resources";
      continue;
    }
    if (next === undefined) break;
    if (a === "--threshold") options.thresholdTokens = Number(next);
    else if (a === "--output-dir") options.outputDir = next;
    else if (a === "--url") url = next;
    else if (a === "-H" || a === "--header") {
      const colon = next.indexOf(":");
      if (colon > 0) headers[next.slice(0, colon).trim()] = next.slice(colon + 1).trim();
    } else continue;
    i++;
  }
  return url === undefined ? undefined : { target: { kind: "http", url, headers }, options };
}

/** True when the entry's command line is the atlatl memory server, which offloads by itself. */
export function isAtlatlServer(command: unknown, args: unknown): boolean {
  if (typeof command !== "string") return false;
  const list = Array.isArray(args) ? args : [];
  const names = new Set(["atlatl", "atlatl.js"]);
  if (names.has(basename(command))) return true;
  return typeof list[0] === "string" && names.has(basename(list[0])) && list.includes("serve");
}
