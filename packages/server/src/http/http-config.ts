import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type ConfigEntry, readTomlConfigFile, resolveConfigSection } from "@atlatl/lro/node";

/** Host names a loopback-bound server accepts in `Host` and `Origin` by default. */
export const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"] as const;

const HTTP_KEYS = {
  host: { type: "string", default: "127.0.0.1", description: "Address to listen on" },
  port: { type: "integer", min: 0, max: 65535, default: 8080, description: "Port (0: any free)" },
  tokens: {
    type: "list",
    default: [],
    description: "Bearer tokens: a TOML array, or comma-separated (never printed)",
  },
  token_file: {
    type: "string",
    default: "",
    description: "File with one bearer token per line",
    normalize: (value: string, origin: { kind: string; file?: string }) =>
      value === "" ? value : resolve(origin.file ? dirname(origin.file) : ".", value),
  },
  allowed_hosts: {
    type: "list",
    default: [],
    description:
      "Extra Host names accepted (a TOML array, or comma-separated; loopback names always)",
  },
  allowed_origins: {
    type: "list",
    default: [],
    description:
      'Origins accepted besides loopback ones, e.g. ["https://dash.example.com"] (or comma-separated)',
  },
  max_body_bytes: {
    type: "integer",
    min: 1024,
    default: 4 * 1024 * 1024,
    description: "Largest request body",
  },
  max_concurrent: {
    type: "integer",
    min: 1,
    max: 100_000,
    default: 64,
    description: "Requests in flight per token before 429",
  },
  legacy_sessions: {
    type: "boolean",
    default: true,
    description:
      "2025-11-25 clients get sessions (Mcp-Session-Id, GET stream); false: each request stands alone, any instance answers it",
  },
  max_sessions_per_token: {
    type: "integer",
    min: 1,
    max: 100_000,
    default: 64,
    description:
      "Open MCP sessions (2025-11-25) and listen streams (2026-07-28) per token before refusal",
  },
  max_listen_refusals_per_minute: {
    type: "integer",
    min: 1,
    max: 100_000,
    default: 60,
    description:
      "Refused listen streams (2026-07-28) per token in a minute; past it its listens get 429 until the minute ends",
  },
  max_sessions: {
    type: "integer",
    min: 1,
    max: 1_000_000,
    default: 1024,
    description: "Open MCP sessions in all before 429",
  },
  session_idle_seconds: {
    type: "integer",
    min: 1,
    max: 7 * 24 * 3600,
    default: 900,
    description: "An MCP session not used for this long is closed",
  },
  resume_bytes: {
    type: "integer",
    min: 0,
    default: 1024 * 1024,
    description: "Bytes of recent server messages a session keeps for resumption",
  },
  proxy_inline_bytes: {
    type: "integer",
    min: 1024,
    default: 8 * 1024 * 1024,
    description: "Largest whole result set sent inline to an LRO proxy client",
  },
} as const;

/** The resolved `[server.http]` section. */
export interface HttpConfig {
  host: string;
  port: number;
  /** Accepted bearer tokens (from `tokens` and `token_file`). */
  tokens: string[];
  allowedHosts: string[];
  allowedOrigins: string[];
  maxBodyBytes: number;
  maxConcurrent: number;
  /**
   * `legacy_sessions`: serve 2025-era clients in sessions (this instance only);
   * false: statelessly, each request on its own, so any instance answers it.
   */
  legacySessions: boolean;
  sessions: SessionLimits;
  /** Refused `subscriptions/listen` requests per token in a minute before they get 429 unseen. */
  maxListenRefusalsPerMinute: number;
  /** For listings: the token values replaced by their count. */
  entries: ConfigEntry[];
}

/** How many MCP sessions, for how long, keeping how much (`[server.http]`). */
export interface SessionLimits {
  maxPerToken: number;
  maxTotal: number;
  idleMs: number;
  /** Bytes of server messages each session's event store keeps for resumption. */
  resumeBytes: number;
  /** Largest inline whole result set for a `clientInfo.proxy` client, in bytes of JSON text. */
  proxyInlineBytes: number;
}

interface HttpConfigOverrides {
  host?: string | undefined;
  port?: number | undefined;
}

function readTokenFile(path: string): string[] {
  const text = readFileSync(path, "utf8");
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith("#"));
}

/**
 * Resolve `[server.http]`: defaults < TOML file < `ATLATL_SERVER__HTTP__*` <
 * `--host`/`--port`, with the layered resolver the rest of the config uses.
 */
export function loadHttpConfig(
  configFile: string | null,
  env: Record<string, string | undefined>,
  overrides: HttpConfigOverrides = {},
): HttpConfig {
  const file = configFile ? readTomlConfigFile(configFile) : undefined;
  const section = resolveConfigSection({
    section: "server.http",
    keys: HTTP_KEYS,
    ...(file ? { file } : {}),
    env,
    overrides: { host: overrides.host, port: overrides.port },
  });
  const v = section.values;
  const tokens = [...v.tokens, ...(v.token_file ? readTokenFile(v.token_file) : [])];
  return {
    host: v.host,
    port: v.port,
    tokens,
    allowedHosts: v.allowed_hosts,
    allowedOrigins: v.allowed_origins,
    maxBodyBytes: v.max_body_bytes,
    maxConcurrent: v.max_concurrent,
    legacySessions: v.legacy_sessions,
    maxListenRefusalsPerMinute: v.max_listen_refusals_per_minute,
    sessions: {
      maxPerToken: v.max_sessions_per_token,
      maxTotal: v.max_sessions,
      idleMs: v.session_idle_seconds * 1000,
      resumeBytes: v.resume_bytes,
      proxyInlineBytes: v.proxy_inline_bytes,
    },
    entries: section.entries.map((e) =>
      e.key.endsWith(".tokens") ? { ...e, value: `(${v.tokens.length} tokens)` } : e,
    ),
  };
}

/** True for addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}
