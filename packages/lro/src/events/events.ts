/**
 * Observability events of the specification (`OffloadCreated`, `OffloadWriteFailed`,
 * `OffloadFileExpired`): typed, subscribable, and by default written as one JSON
 * line each on stderr (stdout of a stdio server is the protocol channel).
 */

/** A result set was written to a JSONL file and replaced by a descriptor. */
export interface OffloadCreatedEvent {
  type: "OffloadCreated";
  /** ISO 8601 time of the event. */
  time: string;
  path: string;
  operation: string;
  count: number;
  bytes: number;
  estimated_tokens: number;
  detail: string;
}

/** Writing the file failed; the result went back inline, truncated. */
export interface OffloadWriteFailedEvent {
  type: "OffloadWriteFailed";
  time: string;
  operation: string;
  /** The path that was being written, when one had been chosen. */
  path: string | null;
  /** `LroError` code or Node `errno` code (`ENOSPC`, `EACCES`, ...), when known. */
  code: string | null;
  error: string;
  count: number;
  estimated_tokens: number;
}

/** The sweeper deleted a file whose TTL had elapsed (or an orphaned temporary file). */
export interface OffloadFileExpiredEvent {
  type: "OffloadFileExpired";
  time: string;
  path: string;
  /** Operation from the file name; null for an orphaned temporary file. */
  operation: string | null;
  /** ISO 8601 creation time (from the ULID in the name). */
  created_at: string;
  /** ISO 8601 time the file stopped being valid (`created_at + ttl`). */
  expired_at: string;
  /** `expired` for a live file past its TTL, `orphan` for a left-over temporary file. */
  reason: "expired" | "orphan";
  bytes: number;
}

/** A sweep of the output directory finished: what it deleted and what it left alone. */
export interface OffloadSweepCompletedEvent {
  type: "OffloadSweepCompleted";
  time: string;
  dir: string;
  /** Expired offload files deleted. */
  expired: number;
  /** Orphaned temporary files deleted. */
  orphans: number;
  /** Offload files (and young temporary files) still live, left in place. */
  kept: number;
  /** Entries left alone because they are not ours (other names, other owners, links, content). */
  foreign: number;
  /** Deletions that failed. */
  errors: number;
}

/** Every LRO event. */
export type LroEvent =
  | OffloadCreatedEvent
  | OffloadWriteFailedEvent
  | OffloadFileExpiredEvent
  | OffloadSweepCompletedEvent;

/** The name of an event type. */
export type LroEventType = LroEvent["type"];

/** The event of one type. */
export type LroEventOf<T extends LroEventType> = Extract<LroEvent, { type: T }>;

/** A subscriber of events: of a hub (`LroEvents.on`) or of one call (`onEvent` options). */
export type LroEventListener = (event: LroEvent) => void;

/** Give `event` to `listener`; its failure is its own (observability never breaks an offload). */
export function notifyListener(listener: LroEventListener, event: LroEvent): void {
  try {
    listener(event);
  } catch {
    // Listeners are observers; their failures are theirs.
  }
}

/** Where events go besides subscribers: one serialized line each (no newline), or null. */
export type LroEventSink = ((line: string) => void) | null;

/** Writes a line to stderr where a process exists, else to the console's error stream. */
export const stderrSink: (line: string) => void = (line) => {
  const proc = (globalThis as { process?: { stderr?: { write(s: string): unknown } } }).process;
  if (proc?.stderr) proc.stderr.write(`${line}\n`);
  else console.error(line);
};

/**
 * A small typed event hub. Listener errors are swallowed: observability must
 * never break the offload path.
 */
export class LroEvents {
  private readonly listeners = new Map<string, Set<LroEventListener>>();
  /** Current sink; assign null to silence the JSON lines. */
  sink: LroEventSink;

  /** @param options.sink where JSON lines go (default stderr; null silences them). */
  constructor(options: { sink?: LroEventSink } = {}) {
    this.sink = options.sink === undefined ? stderrSink : options.sink;
  }

  /** Subscribe to one event type, or `"*"` for all. Returns the unsubscribe function. */
  on<T extends LroEventType>(type: T, listener: (event: LroEventOf<T>) => void): () => void;
  on(type: "*", listener: LroEventListener): () => void;
  on(type: string, listener: (event: never) => void): () => void {
    let set = this.listeners.get(type);
    if (!set) {
      set = new Set();
      this.listeners.set(type, set);
    }
    const fn = listener as LroEventListener;
    set.add(fn);
    return () => {
      set.delete(fn);
    };
  }

  /** Deliver an event to the sink and to its subscribers. */
  emit(event: LroEvent): void {
    if (this.sink) {
      try {
        this.sink(JSON.stringify({ event: event.type, ...event, type: undefined }));
      } catch {
        // A broken sink (closed stderr) must not fail the operation.
      }
    }
    for (const key of [event.type, "*"]) {
      for (const fn of this.listeners.get(key) ?? []) notifyListener(fn, event);
    }
  }
}

/**
 * The events of one call: the offloader's hub (`Offloader.events`: its sink,
 * its subscribers) gets every event of every call; `onEvent`, when the call
 * passes one, gets the events of that call only, right after the hub (e.g. to
 * log them to that call's MCP request). Passed explicitly down to where the
 * events are emitted: no ambient context carries it.
 */
export interface CallEvents {
  /** This call's own listener (its failures are swallowed, as a hub's subscribers' are). */
  onEvent?: LroEventListener | undefined;
}
