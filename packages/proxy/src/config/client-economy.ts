/**
 * What pays for each client `install` knows, in one table: whether the proxy
 * should serve offload files as MCP resources to it, whether the proxy and the
 * memory server list `lro_extract` to it, and the offload threshold
 * `install <client>` writes into its wrapped entries. Read by the proxy at the
 * client's opening message (which client it is, from `clientInfo.name`) and by
 * `install`.
 */
import { DEFAULT_OFFLOAD_CONFIG, type ExtractToolMode } from "@atlatl/lro/node";
import type { ClientName } from "../install/clients.js";
import type { WrapOptions } from "../install/wrap-rule.js";

/** One client's economy. */
interface ClientEconomy {
  /**
   * `clientInfo.name` the client sends at `initialize` (or in a 2026-07-28
   * request's envelope), matched whole or as a prefix before `-`. Only names
   * seen from the client itself are listed.
   */
  clientInfoNames: readonly string[];
  /**
   * Serve offload files as resources. A client whose agent has a shell reads
   * the files with it (the descriptor names the path), while advertising
   * `resources` makes it add its resource tools to every request (Claude Code:
   * ListMcpResourcesTool, ReadMcpResourceTool, ReadMcpResourceDirTool, 2,082
   * bytes, measured with Claude Code 2.1.328 and tool search off).
   */
  offloadResources: boolean;
  /**
   * List `lro_extract`. A client whose agent has a shell on the machine of the
   * files runs the descriptor's jq recipes itself, while the tool's definition
   * is sent with every request (858 bytes, Claude Code 2.1.328).
   */
  extractTool: boolean;
  /**
   * Offload threshold in tokens below which inlining costs less session input
   * than offloading (the extra turn re-sends the whole context), measured by
   * `npm run bench token-economy` (the figures beside each); a client not
   * measured holds the specification's default.
   */
  thresholdTokens: number;
}

/** The specification's threshold, for a client nothing has been measured for. */
const SPEC_THRESHOLD = DEFAULT_OFFLOAD_CONFIG.thresholdTokens;

/**
 * Claude Code 2.1.328, measured with `npm run bench token-economy` (its size
 * sweep; one question, one tool call): a result up to 49,659 chars (12,415
 * chars/4, 16,099 o200k) stays inline, one from 51,268 chars (16,619 o200k) it
 * writes to a file itself (a notice with a 2 KB preview; past ~25k tokens,
 * none). Below that, offloading costs more session input than inline (its extra
 * turn re-sends ~18k o200k of system prompt and tools; 1.05x at 16,099 o200k),
 * from there on atlatl's descriptor costs no more than Claude Code's own file
 * (0.99x, then 0.73x past 25k tokens): offload from 50,000 chars.
 */
const CLAUDE_CODE_THRESHOLD = 12_500;

/**
 * Codex 0.169.0, measured the same way: a result up to 11,941 chars is kept
 * whole, one of 12,340 chars or more (a 258k-o200k one too) is cut to its first
 * and last ~6,000 chars, 11,984 in all, and the answer is lost. Offloading never
 * costs less session input than a whole inline result (1.26x at 3,899 o200k), so
 * the threshold sits just below the cut, with room for the estimate (chars/4).
 */
const CODEX_THRESHOLD = 2_800;

/** Every client `install` supports. */
export const CLIENT_ECONOMY: Readonly<Record<ClientName, ClientEconomy>> = {
  // clientInfo seen from `claude mcp list` (2.1.328).
  "claude-code": {
    clientInfoNames: ["claude-code"],
    offloadResources: false,
    extractTool: false,
    thresholdTokens: CLAUDE_CODE_THRESHOLD,
  },
  "claude-desktop": {
    clientInfoNames: [],
    offloadResources: true,
    extractTool: true,
    thresholdTokens: SPEC_THRESHOLD,
  },
  cursor: {
    clientInfoNames: [],
    offloadResources: true,
    extractTool: true,
    thresholdTokens: SPEC_THRESHOLD,
  },
  vscode: {
    clientInfoNames: [],
    offloadResources: true,
    extractTool: true,
    thresholdTokens: SPEC_THRESHOLD,
  },
  windsurf: {
    clientInfoNames: [],
    offloadResources: true,
    extractTool: true,
    thresholdTokens: SPEC_THRESHOLD,
  },
  // The MCP client name in the Codex CLI's binary (the version .ci/run installs).
  codex: {
    clientInfoNames: ["codex-mcp-client"],
    offloadResources: false,
    extractTool: false,
    thresholdTokens: CODEX_THRESHOLD,
  },
  // Gemini CLI's MCP client name (its source; some versions append the server's name).
  // Not measured: the specification's threshold.
  gemini: {
    clientInfoNames: ["gemini-cli-mcp-client"],
    offloadResources: false,
    extractTool: false,
    thresholdTokens: SPEC_THRESHOLD,
  },
};

/** The known client whose `clientInfo.name` this is, if any. */
export function clientByInfoName(name: string | undefined): ClientName | undefined {
  if (!name) return undefined;
  for (const [client, economy] of Object.entries(CLIENT_ECONOMY)) {
    if (economy.clientInfoNames.some((n) => name === n || name.startsWith(`${n}-`))) {
      return client as ClientName;
    }
  }
  return undefined;
}

/** `proxy.offload_resources`: decided per client (`auto`), or forced. */
export const OFFLOAD_RESOURCES_MODES = ["auto", "on", "off"] as const;
export type OffloadResourcesMode = (typeof OFFLOAD_RESOURCES_MODES)[number];

/**
 * Whether the proxy serves offload files as resources to the client named
 * `clientInfoName`: forced by `mode`, else as the client's entry says, else
 * yes (a client not known may have no other way to read them).
 */
export function servesOffloadResources(
  mode: OffloadResourcesMode,
  clientInfoName: string | undefined,
): boolean {
  if (mode !== "auto") return mode === "on";
  const client = clientByInfoName(clientInfoName);
  return client ? CLIENT_ECONOMY[client].offloadResources : true;
}

/** Where the offload files are, as the extraction-tool decision needs it. */
export interface ExtractToolFacts {
  /** The files are on the client's machine (stdio; not an HTTP server that may be remote). */
  filesLocal: boolean;
  /** The `jq` CLI the descriptor's recipes run is on PATH (`jqOnPath`). */
  jq: boolean;
}

/**
 * Whether `lro_extract` is listed to the client named `clientInfoName`: forced
 * by `mode`, else not for a known client with a shell (its entry's
 * `extractTool`) that can run the recipes here (`facts`), else yes.
 */
export function listsExtractTool(
  mode: ExtractToolMode,
  clientInfoName: string | undefined,
  facts: ExtractToolFacts,
): boolean {
  if (mode !== "auto") return mode === "on";
  const client = clientByInfoName(clientInfoName);
  if (!client || CLIENT_ECONOMY[client].extractTool) return true;
  return !(facts.filesLocal && facts.jq);
}

/**
 * The threshold `install <client>` writes (`--threshold`): the client's
 * measured one, or none where it is the specification's (the default).
 */
export function installThreshold(
  client: ClientName,
  table: Readonly<Record<ClientName, ClientEconomy>> = CLIENT_ECONOMY,
): number | undefined {
  const measured = table[client].thresholdTokens;
  return measured !== SPEC_THRESHOLD ? measured : undefined;
}

/**
 * The proxy options `install <client>` writes: the user's, else a threshold
 * where the client's measured one differs from the specification's. Offload
 * resources are left to the proxy, which tells the client by its
 * `clientInfo.name` at `initialize`: an entry carries no resource flag, and a
 * project's shared `.mcp.json` still starts a teammate's older atlatl-proxy.
 */
export function installOptions(
  client: ClientName,
  given: WrapOptions,
  table: Readonly<Record<ClientName, ClientEconomy>> = CLIENT_ECONOMY,
): WrapOptions {
  const threshold = given.thresholdTokens ?? installThreshold(client, table);
  return {
    ...(threshold !== undefined ? { thresholdTokens: threshold } : {}),
    ...(given.resources !== undefined ? { resources: given.resources } : {}),
    ...(given.outputDir !== undefined ? { outputDir: given.outputDir } : {}),
  };
}
