/**
 * `@atlatl/lro/node`'s per-request checks of MCP 2026-07-28 and its JSON-RPC
 * error builders. The package does not load the SDK at run time, so the SDK's
 * envelope keys, error codes and messages are written there once: pinned here
 * to the SDK's own (its error classes build the same answers).
 */
import {
  claimedRevision,
  jsonRpcErrorHttpResponse,
  jsonRpcErrorResponse,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  MODERN_REVISIONS,
  modernMessageRefusal,
  rawMessage,
  TASKS_EXTENSION,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "@atlatl/lro/node";
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  UnsupportedProtocolVersionError,
} from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";

/** A 2026-07-28 request of `method` claiming `revision`, with `capabilities` in its envelope. */
function request(
  method: string,
  revision: string,
  params: Record<string, unknown> = {},
  capabilities: unknown = {},
) {
  const message = rawMessage({
    jsonrpc: "2.0",
    id: 7,
    method,
    params: {
      ...params,
      _meta: {
        [PROTOCOL_VERSION_META_KEY]: revision,
        [CLIENT_CAPABILITIES_META_KEY]: capabilities,
      },
    },
  });
  if (!message) throw new Error("not a request");
  return message;
}

/** What the SDK's error serializes to as a JSON-RPC error object. */
const asObject = (e: { code: number; message: string; data?: unknown }) => ({
  code: e.code,
  message: e.message,
  data: e.data,
});

describe("the per-request checks of 2026-07-28", () => {
  it("use the SDK's codes and envelope keys", () => {
    expect(UNSUPPORTED_PROTOCOL_VERSION).toBe(ProtocolErrorCode.UnsupportedProtocolVersion);
    expect(MISSING_REQUIRED_CLIENT_CAPABILITY).toBe(
      ProtocolErrorCode.MissingRequiredClientCapability,
    );
    expect(claimedRevision(request("tools/list", "2099-01-01"))).toBe("2099-01-01");
  });

  it("refuse a revision not served as the SDK's UnsupportedProtocolVersionError says", () => {
    expect(
      modernMessageRefusal(request("tools/list", MODERN_REVISIONS[0] as string)),
    ).toBeUndefined();
    expect(modernMessageRefusal(request("tools/list", "2099-01-01"))).toEqual(
      asObject(
        new UnsupportedProtocolVersionError({
          supported: [...MODERN_REVISIONS],
          requested: "2099-01-01",
        }),
      ),
    );
  });

  it("refuse listen for taskIds without the tasks extension declared, with the SDK's code and data", () => {
    const listen = (capabilities: unknown) =>
      modernMessageRefusal(
        request(
          "subscriptions/listen",
          "2026-07-28",
          { notifications: { taskIds: ["t1"] } },
          capabilities,
        ),
      );
    const sdk = new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      `subscriptions/listen with taskIds needs the ${TASKS_EXTENSION} extension declared in the request's clientCapabilities`,
    );
    expect(listen({})).toEqual(asObject(sdk));
    expect(listen({ extensions: { [TASKS_EXTENSION]: {} } })).toBeUndefined();
  });
});

describe("the JSON-RPC error builders", () => {
  it("copy an Error's code, message and data (JSON leaves an Error's message out)", () => {
    const error = new UnsupportedProtocolVersionError({ supported: ["a"], requested: "b" });
    expect(JSON.parse(JSON.stringify(jsonRpcErrorResponse(3, error)))).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: {
        code: -32022,
        message: "Unsupported protocol version: b",
        data: { supported: ["a"], requested: "b" },
      },
    });
    expect(jsonRpcErrorResponse(null, { code: -32600, message: "m" })).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "m" },
    });
  });

  it("carry the response over HTTP with its status and headers", async () => {
    const res = jsonRpcErrorHttpResponse(
      429,
      null,
      { code: -32000, message: "slow down" },
      { "retry-after": "5" },
    );
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: "slow down" },
    });
  });
});
