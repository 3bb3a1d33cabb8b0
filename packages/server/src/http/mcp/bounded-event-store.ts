import type {
  EventId,
  EventStore,
  StreamId,
} from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Events a session keeps for resumption (older ones are dropped: resume then starts later). */
export const RESUME_EVENTS_KEPT = 512;

/**
 * The SDK's resumability hook, one per session: the last
 * {@link RESUME_EVENTS_KEPT} SSE events, replayed after a client's
 * `Last-Event-ID`. (The SDK's own `InMemoryEventStore` is an unbounded example.)
 */
export class BoundedEventStore implements EventStore {
  private readonly events = new Map<EventId, { streamId: StreamId; message: JSONRPCMessage }>();
  private seq = 0;

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = `${streamId}_${(++this.seq).toString(36).padStart(10, "0")}`;
    this.events.set(id, { streamId, message });
    if (this.events.size > RESUME_EVENTS_KEPT) {
      const oldest = this.events.keys().next().value;
      if (oldest !== undefined) this.events.delete(oldest);
    }
    return id;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const last = this.events.get(lastEventId);
    if (!last) return "";
    let after = false;
    for (const [id, event] of this.events) {
      if (id === lastEventId) {
        after = true;
        continue;
      }
      if (after && event.streamId === last.streamId) await send(id, event.message);
    }
    return last.streamId;
  }
}
