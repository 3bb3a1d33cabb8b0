/**
 * Progress notifications of a read tool call, when the client sent a progress
 * token. Each says what has actually happened, never what is about to: the
 * ranked read reports when it asks the store and how many matches came back
 * (`readProgress`, handed to `RecallService.read` / `SearchService.read`),
 * and the call ends with `done` once the response is ready (`progressDone`).
 */
import type { ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import type { ReadProgress } from "../services/ranked-read.js";

interface ProgressExtra {
  _meta?: { progressToken?: string | number };
  sendNotification?: (n: ServerNotification) => Promise<void>;
}

/** One call's notifications: `progress` increases by one with each. */
class CallProgress {
  private sent = 0;
  constructor(private readonly extra: Required<ProgressExtra>) {}

  /** Send one notification (failures to notify never fail the call). */
  send(message: string, final = false): Promise<void> {
    this.sent++;
    const progressToken = this.extra._meta.progressToken as string | number;
    return this.extra
      .sendNotification({
        method: "notifications/progress",
        params: {
          progressToken,
          progress: this.sent,
          ...(final ? { total: this.sent } : {}),
          message,
        },
      })
      .catch(() => {});
  }
}

const calls = new WeakMap<object, CallProgress>();

/** The progress of the call whose `extra` this is, when the client asked for progress. */
function callProgress(extra: unknown): CallProgress | undefined {
  const e = extra as ProgressExtra | undefined;
  if (e?._meta?.progressToken === undefined || typeof e.sendNotification !== "function") {
    return undefined;
  }
  let call = calls.get(e);
  if (!call) {
    call = new CallProgress(e as Required<ProgressExtra>);
    calls.set(e, call);
  }
  return call;
}

/** The message of one step of a ranked read. */
export function readProgressMessage(p: ReadProgress): string {
  switch (p.kind) {
    case "query":
      return "querying the memory store";
    case "hits":
      return `read ${p.read} matches from the store so far`;
    case "done":
      return `the store returned ${p.read} ${p.read === 1 ? "match" : "matches"}`;
  }
}

/**
 * The listener a read tool hands to its ranked read (`extra` is the SDK's
 * request extra, the handler's last argument); undefined when the client did
 * not ask for progress.
 */
export function readProgress(extra: unknown): ((p: ReadProgress) => void) | undefined {
  const call = callProgress(extra);
  if (!call) return undefined;
  return (p) => void call.send(readProgressMessage(p));
}

/** The last notification of a call (`args`: the handler's arguments, `extra` last). */
export async function progressDone(args: readonly unknown[]): Promise<void> {
  await callProgress(args[args.length - 1])?.send("done", true);
}
