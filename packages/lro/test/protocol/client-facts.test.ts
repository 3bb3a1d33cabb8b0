/**
 * `@atlatl/lro/node`'s `clientFacts`: the one reading of who a client is from
 * its raw messages (the proxy's opening gate, the server's stdio gate and
 * `/mcp`), under the SDK's own envelope keys; every key the client sent kept.
 */
import { clientFacts, rawMessage } from "@atlatl/lro/node";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";

const raw = (value: unknown) => rawMessage(value) ?? { method: "" };

describe("clientFacts", () => {
  it("reads a 2026-07-28 request's envelope, unknown clientInfo keys kept", () => {
    const facts = clientFacts(
      raw({
        jsonrpc: "2.0",
        id: 1,
        method: "server/discover",
        params: {
          _meta: {
            [PROTOCOL_VERSION_META_KEY]: "2026-07-28",
            [CLIENT_CAPABILITIES_META_KEY]: { roots: {} },
            [CLIENT_INFO_META_KEY]: { name: "c", version: "1", proxy: true },
          },
        },
      }),
    );
    expect(facts).toEqual({
      era: "modern",
      capabilities: { roots: {} },
      clientInfo: { name: "c", version: "1", proxy: true },
    });
  });

  it("reads a 2025-era initialize's params", () => {
    const facts = clientFacts(
      raw({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { capabilities: { sampling: {} }, clientInfo: { name: "c", version: "1" } },
      }),
    );
    expect(facts).toEqual({
      era: "legacy",
      capabilities: { sampling: {} },
      clientInfo: { name: "c", version: "1" },
    });
  });

  it("finds none in a notification or a 2025-era request after initialize", () => {
    expect(clientFacts(raw({ jsonrpc: "2.0", method: "notifications/initialized" }))).toBe(
      undefined,
    );
    expect(clientFacts(raw({ jsonrpc: "2.0", id: 2, method: "tools/list" }))).toBe(undefined);
  });
});
