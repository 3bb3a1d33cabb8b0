/**
 * Which of the upstream's notifications reach the client. A 2025 client gets
 * them all, as they came. A 2026-07-28 client has no unsolicited channel but
 * its `subscriptions/listen` streams: list changes and resource updates go
 * there (`serveStdio` routes them onto the client's subscriptions); log
 * messages cannot be tied to one of its requests on stdio, and a 2025 URL
 * elicitation's completion has no 2026 form, so neither is relayed. Progress
 * is relayed per request (`forward.ts`), never through here.
 */
import type { Notification } from "@modelcontextprotocol/server";
import type { Era } from "./downstream-server.js";

/** Notifications a 2026 client can receive on its subscriptions. */
const SUBSCRIBABLE = new Set([
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
  "notifications/resources/updated",
]);

/** `notification` as the client of `era` gets it, or undefined when it is not relayed. */
export function upstreamNotificationFor(
  notification: Notification,
  era: Era,
): Notification | undefined {
  if (era === "legacy") return notification;
  if (!SUBSCRIBABLE.has(notification.method)) return undefined;
  // The upstream's subscription id means nothing to our client.
  const { _meta: _m, ...params } = notification.params ?? {};
  return { method: notification.method, params };
}
