/**
 * The per-client table: which client a `clientInfo.name` is, whether it gets
 * offload resources and `lro_extract`, and the threshold `install <client>`
 * writes (only where a measured figure differs from the specification's; the
 * user's flag wins).
 */
import { DEFAULT_OFFLOAD_CONFIG } from "@atlatl/lro/node";
import { describe, expect, it } from "vitest";
import {
  CLIENT_ECONOMY,
  clientByInfoName,
  installOptions,
  installThreshold,
  listsExtractTool,
  servesOffloadResources,
} from "../src/config/client-economy.js";
import { CLIENT_NAMES } from "../src/install/clients.js";

describe("client economy", () => {
  it("knows a client by the name it sends, whole or before a suffix", () => {
    expect(clientByInfoName("claude-code")).toBe("claude-code");
    expect(clientByInfoName("codex-mcp-client")).toBe("codex");
    expect(clientByInfoName("gemini-cli-mcp-client-github")).toBe("gemini");
    expect(clientByInfoName("claude-codex")).toBeUndefined();
    expect(clientByInfoName("proxy-test")).toBeUndefined();
    expect(clientByInfoName(undefined)).toBeUndefined();
  });

  it("serves offload resources to clients without a shell and unknown ones, unless forced", () => {
    expect(servesOffloadResources("auto", "claude-code")).toBe(false);
    expect(servesOffloadResources("auto", "claude-ai")).toBe(true);
    expect(servesOffloadResources("auto", undefined)).toBe(true);
    expect(servesOffloadResources("on", "claude-code")).toBe(true);
    expect(servesOffloadResources("off", "claude-ai")).toBe(false);
  });

  it("install writes Claude Code's and Codex's measured thresholds, the specification's default elsewhere", () => {
    expect(installOptions("claude-code", {})).toEqual({ thresholdTokens: 12_500 });
    // Below Codex's cut (~12,000 chars, 3,000 chars/4): an offloaded result is whole, a cut one is not.
    expect(installOptions("codex", {})).toEqual({ thresholdTokens: 2_800 });
    expect(CLIENT_ECONOMY.codex.thresholdTokens * 4).toBeLessThan(11_941);
    for (const client of CLIENT_NAMES.filter((c) => c !== "claude-code" && c !== "codex")) {
      expect(CLIENT_ECONOMY[client].thresholdTokens, client).toBe(
        DEFAULT_OFFLOAD_CONFIG.thresholdTokens,
      );
      expect(installThreshold(client), client).toBeUndefined();
      expect(installOptions(client, {}), client).toEqual({});
    }
  });

  it("lists lro_extract except to a shell client that can run the recipes here, unless forced", () => {
    const here = { filesLocal: true, jq: true };
    expect(listsExtractTool("auto", "claude-code", here)).toBe(false);
    expect(listsExtractTool("auto", "codex-mcp-client", here)).toBe(false);
    expect(listsExtractTool("auto", "gemini-cli-mcp-client", here)).toBe(false);
    // Files the client's shell may not reach, recipes it cannot run, clients without a shell.
    expect(listsExtractTool("auto", "claude-code", { filesLocal: false, jq: true })).toBe(true);
    expect(listsExtractTool("auto", "claude-code", { filesLocal: true, jq: false })).toBe(true);
    expect(listsExtractTool("auto", "claude-ai", here)).toBe(true);
    expect(listsExtractTool("auto", undefined, here)).toBe(true);
    expect(listsExtractTool("on", "claude-code", here)).toBe(true);
    expect(listsExtractTool("off", "claude-ai", here)).toBe(false);
  });

  it("install writes a measured threshold that differs, the user's over it, and resources only when asked", () => {
    const measured = {
      ...CLIENT_ECONOMY,
      codex: { ...CLIENT_ECONOMY.codex, thresholdTokens: 4000 },
    };
    expect(installOptions("codex", {}, measured)).toEqual({ thresholdTokens: 4000 });
    expect(installOptions("codex", { thresholdTokens: 900 }, measured)).toEqual({
      thresholdTokens: 900,
    });
    expect(installOptions("cursor", {}, measured)).toEqual({});
    expect(installOptions("cursor", { resources: false }, measured)).toEqual({
      resources: false,
    });
  });
});
