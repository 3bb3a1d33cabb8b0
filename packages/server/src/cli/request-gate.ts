/**
 * The stdio messages, read once more where atlatl holds them (whole lines,
 * after `frameStdioLines`) before the SDK's `serveStdio` gets them. The
 * connection's opening message picks its generation, as it does for the SDK:
 *
 * - a 2025-11-25 `initialize`: its `clientInfo` as sent goes to
 *   `onInitialize` (the SDK drops unknown keys such as `proxy`); nothing after
 *   it is parsed here;
 * - a 2026-07-28 request: from then on every request must claim a revision
 *   atlatl serves (the SDK checks the opening message only), and a
 *   `subscriptions/listen` for `taskIds` must declare the tasks extension;
 *   a request failing either is answered here (`refuse`) and not passed on.
 *
 * Lines that are not JSON-RPC requests or notifications pass untouched: the
 * SDK answers them as it does.
 */
import { Transform, type TransformCallback } from "node:stream";
import {
  claimedRevision,
  isRequest,
  type JsonRpcErrorResponse,
  jsonRpcErrorResponse,
  MODERN_REVISIONS,
  modernMessageRefusal,
  type RawMessage,
  rawMessage,
} from "@atlatl/lro/node";
import { initializeClientInfo, openingClientName } from "../mcp/raw-message.js";

interface RequestGateHooks {
  /** The connection opened with a 2025-era `initialize`: its `clientInfo`, every key kept. */
  onInitialize(clientInfo: Record<string, unknown>): void;
  /** The `clientInfo.name` of the connection's opening message, of either era, if any. */
  onClientName?(name: string): void;
  /** A request refused here: its answer, for the transport to send. */
  refuse(response: JsonRpcErrorResponse<string | number>): void;
  /** A notification dropped here (it cannot be answered), and why. */
  dropped(why: string): void;
}

type Phase = "opening" | "legacy" | "modern";

function parsed(line: Buffer): RawMessage | undefined {
  try {
    return rawMessage(JSON.parse(line.toString("utf8")));
  } catch {
    return undefined;
  }
}

/** Object mode both ways: lines in, the lines the SDK should see out. */
export function gateRequests(hooks: RequestGateHooks): Transform {
  let phase: Phase = "opening";

  /** The generation an opening message picks, as the SDK's stdio entry reads it. */
  const opened = (message: RawMessage): Phase => {
    const name = openingClientName(message);
    if (name !== undefined) hooks.onClientName?.(name);
    const claim = claimedRevision(message);
    if (claim === undefined) {
      // `initialize`, or a message without a claim: the 2025 era.
      const info = initializeClientInfo(message);
      if (info) hooks.onInitialize(info);
      return "legacy";
    }
    if (typeof claim === "string" && MODERN_REVISIONS.includes(claim)) return "modern";
    // The SDK refuses it; the next message opens again.
    return "opening";
  };

  return new Transform({
    objectMode: true,
    transform(line: Buffer, _encoding, done: TransformCallback) {
      if (phase === "legacy") return done(null, line);
      const message = parsed(line);
      if (!message) return done(null, line);
      if (phase === "opening") {
        phase = opened(message);
        if (phase !== "modern") return done(null, line);
      }
      const error = modernMessageRefusal(message);
      if (!error) return done(null, line);
      if (isRequest(message)) hooks.refuse(jsonRpcErrorResponse(message.id, error));
      else hooks.dropped(`${message.method}: ${error.message}`);
      done();
    },
  });
}
