/**
 * What pays for each client `install` knows, in one table: whether the proxy
 * should serve offload files as MCP resources to it, and the offload threshold
 * `install <client>` writes into its wrapped entries. Read by the proxy at the
 * client's opening message (which client it is, from `clientInfo.name`) and by
 * `install`.
 */
import { DEFAULT_OFFLOAD_CONFIG } from "@atlatl/lro/node";
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
   * Offload threshold in tokens below which inlining costs less session input
   * than offloading (the extra turn re-sends the whole context), measured by
   * `npm run bench token-economy`. Not yet measured for any client: each holds
   * the specification's default until the bench says otherwise.
   */
  thresholdTokens: number;
}

/** The specification's threshold, for a client nothing has been measured for. */
const SPEC_THRESHOLD = DEFAULT_OFFLOAD_CONFIG.thresholdTokens;

/** Every client `install` supports. */
export const CLIENT_ECONOMY: Readonly<Record<ClientName, ClientEconomy>> = {
  // clientInfo seen from `claude mcp list` (2.1.328).
  "claude-code": {
    clientInfoNames: ["claude-code"],
    offloadResources: false,
    thresholdTokens: SPEC_THRESHOLD,
  },
  "claude-desktop": {
    clientInfoNames: [],
    offloadResources: true,
    thresholdTokens: SPEC_THRESHOLD,
  },
  cursor: { clientInfoNames: [], offloadResources: true, thresholdTokens: SPEC_THRESHOLD },
  vscode: { clientInfoNames: [], offloadResources: true, thresholdTokens: SPEC_THRESHOLD },
  windsurf: { clientInfoNames: [], offloadResources: true, thresholdTokens: SPEC_THRESHOLD },
  // The MCP client name in the Codex CLI's binary (the version .ci/run installs).
  codex: {
    clientInfoNames: ["codex-mcp-client"],
    offloadResources: false,
    thresholdTokens: SPEC_THRESHOLD,
  },
  // Gemini CLI's MCP client name (its source; some versions append the server's name).
  gemini: {
    clientInfoNames: ["gemini-cli-mcp-client"],
    offloadResources: false,
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

/**
 * The proxy options `install <client>` writes: the user's, else a threshold
 * where the client's measured one differs from the specification's. Offload
 * resources are left to the proxy, which tells the client by its
 * `clientInfo.name` at `initialize`: an entry stays as short as before, and a
 * project's shared `.mcp.json` still starts a teammate's older atlatl-proxy.
 */
export function installOptions(
  client: ClientName,
  given: WrapOptions,
  table: Readonly<Record<ClientName, ClientEconomy>> = CLIENT_ECONOMY,
): WrapOptions {
  const measured = table[client].thresholdTokens;
  const threshold = given.thresholdTokens ?? (measured !== SPEC_THRESHOLD ? measured : undefined);
  return {
    ...(threshold !== undefined ? { thresholdTokens: threshold } : {}),
    ...(given.resources !== undefined ? { resources: given.resources } : {}),
    ...(given.outputDir !== undefined ? { outputDir: given.outputDir } : {}),
  };
}
