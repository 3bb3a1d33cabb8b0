/**
 * Which upstream notifications reach a client of each generation: all of them
 * for 2025; for 2026-07-28 only what its subscriptions can carry (the rule
 * docs/proxy.md states; the relay itself is tested end to end in
 * generations.test.ts).
 */
import { describe, expect, it } from "vitest";
import { upstreamNotificationFor } from "../src/proxy/upstream-notifications.js";

const notes = {
  toolsChanged: { method: "notifications/tools/list_changed", params: {} },
  updated: {
    method: "notifications/resources/updated",
    params: { uri: "demo://x", _meta: { "io.modelcontextprotocol/subscriptionId": "upstream-1" } },
  },
  log: { method: "notifications/message", params: { level: "info", data: "hello" } },
  elicitationComplete: {
    method: "notifications/elicitation/complete",
    params: { elicitationId: "e-1" },
  },
  taskStatus: { method: "notifications/tasks/status", params: { taskId: "t-1" } },
};

describe("upstream notifications by client generation", () => {
  it("passes every notification to a 2025 client as it came", () => {
    for (const n of Object.values(notes)) expect(upstreamNotificationFor(n, "legacy")).toBe(n);
  });

  it("gives a 2026 client list changes and resource updates, without the upstream's subscription id", () => {
    expect(upstreamNotificationFor(notes.toolsChanged, "modern")).toEqual(notes.toolsChanged);
    expect(upstreamNotificationFor(notes.updated, "modern")).toEqual({
      method: "notifications/resources/updated",
      params: { uri: "demo://x" },
    });
  });

  it("relays no log message, URL elicitation completion or 2025 task status to a 2026 client", () => {
    expect(upstreamNotificationFor(notes.log, "modern")).toBeUndefined();
    expect(upstreamNotificationFor(notes.elicitationComplete, "modern")).toBeUndefined();
    expect(upstreamNotificationFor(notes.taskStatus, "modern")).toBeUndefined();
  });
});
