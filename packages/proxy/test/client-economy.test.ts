/**
 * The per-client table: which client a `clientInfo.name` is, whether it gets
 * offload resources, and the threshold `install <client>` writes (only where a
 * measured figure differs from the specification's; the user's flag wins).
 */
import { DEFAULT_OFFLOAD_CONFIG } from "@atlatl/lro/node";
import { describe, expect, it } from "vitest";
import {
  CLIENT_ECONOMY,
  clientByInfoName,
  installOptions,
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

  it("holds the specification's threshold for every client until one is measured", () => {
    for (const client of CLIENT_NAMES) {
      expect(CLIENT_ECONOMY[client].thresholdTokens, client).toBe(
        DEFAULT_OFFLOAD_CONFIG.thresholdTokens,
      );
      expect(installOptions(client, {}), client).toEqual({});
    }
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
    expect(installOptions("claude-code", {}, measured)).toEqual({});
    expect(installOptions("claude-code", { resources: false }, measured)).toEqual({
      resources: false,
    });
  });
});
