/**
 * A session's resumption buffer is bounded in bytes, not only in events
 * (issue 18, item 4): large responses no longer pile up 512 deep. What is
 * kept replays exactly; what was dropped is unknown (the SDK then refuses the
 * resume) rather than replayed with a gap.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { BoundedEventStore } from "../../src/http/mcp/bounded-event-store.js";

const response = (id: number, chars: number): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  result: { content: [{ type: "text", text: "x".repeat(chars) }] },
});
const size = (m: JSONRPCMessage) => Buffer.byteLength(JSON.stringify(m));

async function replay(store: BoundedEventStore, after: string) {
  const sent: number[] = [];
  const stream = await store.replayEventsAfter(after, {
    send: async (_id, m) => void sent.push((m as { id: number }).id),
  });
  return { stream, sent };
}

describe("BoundedEventStore", () => {
  it("keeps at most maxBytes of recent messages, dropping the oldest", async () => {
    const max = 10_000;
    const store = new BoundedEventStore(max);
    const ids: string[] = [];
    for (let i = 1; i <= 20; i++) ids.push(await store.storeEvent("s1", response(i, 2_000)));
    expect(store.keptBytes).toBeLessThanOrEqual(max);
    expect(store.keptBytes).toBeGreaterThan(max - size(response(1, 2_000)));
    // The oldest are gone: a resume from them is unknown, not replayed with a gap.
    expect(await store.getStreamIdForEventId(ids[0] as string)).toBeUndefined();
    const kept = Math.floor(max / size(response(1, 2_000)));
    const from = ids[20 - kept] as string;
    expect(await store.getStreamIdForEventId(from)).toBe("s1");
    const { sent } = await replay(store, from);
    expect(sent).toEqual(Array.from({ length: kept - 1 }, (_, i) => 20 - kept + 2 + i));
  });

  it("sends but does not keep a message larger than the bound, and forgets what came before it", async () => {
    const store = new BoundedEventStore(10_000);
    const before = await store.storeEvent("s1", response(1, 100));
    const huge = await store.storeEvent("s1", response(2, 50_000));
    const after = await store.storeEvent("s1", response(3, 100));
    expect(huge).toBeTruthy();
    expect(await store.getStreamIdForEventId(before)).toBeUndefined();
    expect(await store.getStreamIdForEventId(huge)).toBeUndefined();
    expect(await store.getStreamIdForEventId(after)).toBe("s1");
    expect(store.keptBytes).toBe(size(response(3, 100)));
  });
});
