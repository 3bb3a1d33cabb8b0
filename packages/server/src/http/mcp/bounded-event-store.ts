import type { EventId, EventStore, JSONRPCMessage, StreamId } from "@modelcontextprotocol/server";

/** Events a session keeps for resumption at most, however small (older ones are dropped). */
const RESUME_EVENTS_KEPT = 512;

interface Stored {
  streamId: StreamId;
  message: JSONRPCMessage;
  bytes: number;
}

/**
 * The SDK's resumability hook, one per session: the most recent SSE events,
 * at most {@link RESUME_EVENTS_KEPT} and `maxBytes` of JSON text together,
 * replayed after a client's `Last-Event-ID`. Older ones are dropped, so a
 * resume from them is refused (the SDK answers 400) rather than replayed with
 * a gap. A message larger than `maxBytes` alone is sent but not kept, and
 * everything before it is dropped for the same reason. (The SDK's own
 * `InMemoryEventStore` is an unbounded example.)
 */
export class BoundedEventStore implements EventStore {
  private readonly events = new Map<EventId, Stored>();
  private seq = 0;
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Bytes of JSON text kept now. */
  get keptBytes(): number {
    return this.bytes;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = `${streamId}_${(++this.seq).toString(36).padStart(10, "0")}`;
    const bytes = Buffer.byteLength(JSON.stringify(message));
    if (bytes > this.maxBytes) {
      this.events.clear();
      this.bytes = 0;
      return id;
    }
    this.events.set(id, { streamId, message, bytes });
    this.bytes += bytes;
    while (this.events.size > RESUME_EVENTS_KEPT || this.bytes > this.maxBytes) {
      const [oldest, event] = this.events.entries().next().value as [EventId, Stored];
      this.events.delete(oldest);
      this.bytes -= event.bytes;
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
