/**
 * Progress notifications of a read tool call, when the client sent a progress
 * token. Each says what has actually happened, never what is about to: the
 * ranked read reports when it asks the store and how many matches came back
 * (`readProgress`, handed to `RecallService.read` / `SearchService.read`),
 * and the call ends with `done` once the response is ready (`progressDone`).
 * A call running as a task reports the same messages into its task's
 * `statusMessage` (`reportToTask`): its request was answered with the task,
 * so there is no request left to notify.
 */
import type { ServerContext } from "@modelcontextprotocol/server";
import type { ReadProgress } from "../services/ranked-read.js";

/** What a call's progress needs of its handler context (`ServerContext`). */
interface ProgressExtra {
  mcpReq?: Partial<Pick<ServerContext["mcpReq"], "_meta" | "notify">>;
}

/** A call whose client asked for progress: its token and the request's `notify`. */
interface Notifier {
  progressToken: string | number;
  notify: ServerContext["mcpReq"]["notify"];
}

/** One call's notifications (`progress` increases by one with each), and its task's status. */
class CallProgress {
  private sent = 0;
  constructor(
    private readonly notifier: Notifier | undefined,
    private readonly task: ((message: string) => void) | undefined,
  ) {}

  /** Send one notification (failures to notify never fail the call). */
  send(message: string, final = false): Promise<void> {
    this.sent++;
    this.task?.(message);
    if (!this.notifier) return Promise.resolve();
    return this.notifier
      .notify({
        method: "notifications/progress",
        params: {
          progressToken: this.notifier.progressToken,
          progress: this.sent,
          ...(final ? { total: this.sent } : {}),
          message,
        },
      })
      .catch(() => {});
  }
}

const calls = new WeakMap<object, CallProgress>();
const taskSinks = new WeakMap<object, (message: string) => void>();

/** Report the progress of the call whose `extra` this is to `sink` (its task's status). */
export function reportToTask(extra: object, sink: (message: string) => void): void {
  taskSinks.set(extra, sink);
}

/** The progress of the call whose `extra` this is, when the client asked for progress or it is a task. */
function callProgress(extra: unknown): CallProgress | undefined {
  if (typeof extra !== "object" || extra === null) return undefined;
  const e = extra as ProgressExtra;
  const progressToken = e.mcpReq?._meta?.progressToken;
  const notify =
    progressToken !== undefined && typeof e.mcpReq?.notify === "function"
      ? { progressToken, notify: e.mcpReq.notify }
      : undefined;
  const task = taskSinks.get(e);
  if (!notify && !task) return undefined;
  let call = calls.get(e);
  if (!call) {
    call = new CallProgress(notify, task);
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
 * handler context, `ServerContext`, the handler's last argument); undefined when the client did
 * not ask for progress and the call is no task.
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
