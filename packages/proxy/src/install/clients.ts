/**
 * The MCP clients `install` knows: where each keeps its servers, in which
 * format and spelling. Locations as the clients document them (late 2026):
 *
 * - claude-code: `~/.claude.json` (`mcpServers`, and `projects[path].mcpServers`
 *   for servers added in one directory) and the project's `.mcp.json`
 * - claude-desktop: `claude_desktop_config.json` in the app's settings folder
 * - cursor: `~/.cursor/mcp.json`
 * - vscode: `mcp.json` in the user settings folder, servers under `servers`
 * - windsurf: `~/.codeium/windsurf/mcp_config.json` (URL key `serverUrl`)
 * - codex: `$CODEX_HOME/config.toml` (default `~/.codex`), `[mcp_servers.NAME]`
 * - gemini: `~/.gemini/settings.json` (`httpUrl` for Streamable HTTP, `url` for SSE)
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type { ConfigFormat, MapPath } from "./config-format.js";
import { tableAt } from "./config-format.js";
import { codexDialect, type EntryDialect, jsonDialect } from "./dialects.js";
import { jsonFormat } from "./json-format.js";
import { tomlFormat } from "./toml-format.js";

/** The clients, by the name the command line takes. */
export const CLIENT_NAMES = [
  "claude-code",
  "claude-desktop",
  "cursor",
  "vscode",
  "windsurf",
  "codex",
  "gemini",
] as const;
export type ClientName = (typeof CLIENT_NAMES)[number];

/** Where a client's files are looked for. */
export interface ClientEnv {
  home: string;
  cwd: string;
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
}

/** One config file of a client. */
export interface ClientFile {
  path: string;
  /** The tables of servers in this document. */
  maps(doc: Record<string, unknown>): MapPath[];
  /** The table new servers go to (`atlatl install`). */
  primaryMap: MapPath;
  /** A project's own file (usually committed): left alone unless asked, never given local paths. */
  shared?: boolean;
}

/** A client: its files, their format and how entries are spelled. */
export interface ClientSpec {
  name: ClientName;
  format: ConfigFormat;
  dialect: EntryDialect;
  /** True when a new command entry carries `"type": "stdio"` (as the client's own `mcp add` writes). */
  newEntryType: boolean;
  /** The default files (`--config` replaces them with one). */
  files(where: ClientEnv): ClientFile[];
  /** A file of this client's format at `path` (`--config`). */
  file(path: string): ClientFile;
}

function fixedFile(key: string) {
  return (path: string): ClientFile => ({ path, maps: () => [[key]], primaryMap: [key] });
}

/** `~/.claude.json`: user servers, plus each project's own table. */
function claudeUserFile(path: string): ClientFile {
  return {
    path,
    primaryMap: ["mcpServers"],
    maps(doc) {
      const projects = tableAt(doc, ["projects"]) ?? {};
      return [
        ["mcpServers"],
        ...Object.keys(projects)
          .filter((p) => tableAt(doc, ["projects", p, "mcpServers"]) !== undefined)
          .map((p) => ["projects", p, "mcpServers"]),
      ];
    },
  };
}

/** The settings folder of a desktop app (Electron's userData parent). */
function appSettingsDir(where: ClientEnv): string {
  if (where.platform === "darwin") return join(where.home, "Library", "Application Support");
  if (where.platform === "win32") {
    return where.env.APPDATA ?? join(where.home, "AppData", "Roaming");
  }
  return where.env.XDG_CONFIG_HOME ?? join(where.home, ".config");
}

const standardDialect = jsonDialect(["url"], (url) => ({ type: "http", url }));

function spec(
  name: ClientName,
  format: ConfigFormat,
  dialect: EntryDialect,
  file: (path: string) => ClientFile,
  paths: (where: ClientEnv) => string[],
  newEntryType = false,
): ClientSpec {
  return { name, format, dialect, newEntryType, file, files: (where) => paths(where).map(file) };
}

/** Every client `install` supports, by name. */
const CLIENTS: Readonly<Record<ClientName, ClientSpec>> = {
  "claude-code": {
    name: "claude-code",
    format: jsonFormat(false),
    dialect: standardDialect,
    newEntryType: true,
    file: claudeUserFile,
    files: (where) => [
      claudeUserFile(
        where.env.CLAUDE_CONFIG_DIR !== undefined
          ? join(where.env.CLAUDE_CONFIG_DIR, ".claude.json")
          : join(where.home, ".claude.json"),
      ),
      { ...fixedFile("mcpServers")(join(where.cwd, ".mcp.json")), shared: true },
    ],
  },
  "claude-desktop": spec(
    "claude-desktop",
    jsonFormat(false),
    standardDialect,
    fixedFile("mcpServers"),
    (where) => [join(appSettingsDir(where), "Claude", "claude_desktop_config.json")],
  ),
  cursor: spec(
    "cursor",
    jsonFormat(true),
    jsonDialect(["url"], (url) => ({ url })),
    fixedFile("mcpServers"),
    (where) => [join(where.home, ".cursor", "mcp.json")],
  ),
  vscode: spec(
    "vscode",
    jsonFormat(true),
    standardDialect,
    fixedFile("servers"),
    (where) => [join(appSettingsDir(where), "Code", "User", "mcp.json")],
    true,
  ),
  windsurf: spec(
    "windsurf",
    jsonFormat(true),
    jsonDialect(["serverUrl", "url"], (url) => ({ serverUrl: url })),
    fixedFile("mcpServers"),
    (where) => [join(where.home, ".codeium", "windsurf", "mcp_config.json")],
  ),
  codex: spec("codex", tomlFormat, codexDialect, fixedFile("mcp_servers"), (where) => [
    join(where.env.CODEX_HOME ?? join(where.home, ".codex"), "config.toml"),
  ]),
  gemini: spec(
    "gemini",
    jsonFormat(true),
    jsonDialect(["httpUrl", "url"], (url) => ({ httpUrl: url })),
    fixedFile("mcpServers"),
    (where) => [join(where.home, ".gemini", "settings.json")],
  ),
};

/** The client named `name`, or an error listing the known ones. */
export function clientNamed(name: string): ClientSpec {
  if ((CLIENT_NAMES as readonly string[]).includes(name)) return CLIENTS[name as ClientName];
  throw new Error(
    `unknown client ${JSON.stringify(name)}; expected one of ${CLIENT_NAMES.join(", ")}`,
  );
}

/** Where the clients' files are for this process: the user's home and the current directory. */
export function currentClientEnv(): ClientEnv {
  return { home: homedir(), cwd: process.cwd(), platform: process.platform, env: process.env };
}
