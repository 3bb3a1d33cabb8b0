/**
 * Progress of a read tool call, as the `withProgress` middleware (`(next) =>
 * handler`, composed once per read tool with the LRO middleware) makes it.
 * It reaches the call when the client sent a progress token, or when the call
 * runs as a task: then the same messages go into the task's `statusMessage`
 * (the request was answered with the task, so there is no request left to
 * notify). Each says what has actually happened, never what is about to: the
 * ranked read reports when it asks the store and how many matches came back
 * (`readProgress`, handed to `RecallService.read` / `SearchService.read`),
 * and the middleware ends the call with `done` once the response is ready.
 * What a call reports travels in its handler context, nowhere else.
 */
import type { ServerContext } from "@modelcontextprotocol/server";
import type { ReadProgress } from "../services/ranked-read.js";

/** What a call's progress needs of its handler context (`ServerContext`). */
export interface ProgressContext {
  mcpReq?: Partial<Pick<ServerContext["mcpReq"], "_meta" | "notify">>;
  /** Set by a task's context (`task-call.ts`): where its work's status goes. */
  readonly taskStatus?: ((message: string) => void) | undefined;
  /** Set by {@link withProgress}: the call's progress. */
  readonly progress?: CallProgress | undefined;
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

/** The progress of the call whose context is `ctx`, when the client asked for it or it is a task. */
function progressOf(ctx: ProgressContext): CallProgress | undefined {
  const progressToken = ctx.mcpReq?._meta?.progressToken;
  const notify =
    progressToken !== undefined && typeof ctx.mcpReq?.notify === "function"
      ? { progressToken, notify: ctx.mcpReq.notify }
      : undefined;
  if (!notify && !ctx.taskStatus) return undefined;
  return new CallProgress(notify, ctx.taskStatus);
}

/**
 * The progress middleware: the handler gets its context with the call's
 * progress (`readProgress` reads it), and the call ends with `done` once the
 * response is ready. A call nobody follows passes through untouched.
 */
export function withProgress<A extends unknown[], R>(
  next: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args) => {
    const ctx = args.at(-1);
    if (typeof ctx !== "object" || ctx === null) return next(...args);
    const progress = progressOf(ctx as ProgressContext);
    if (!progress) return next(...args);
    const result = await next(...([...args.slice(0, -1), { ...ctx, progress }] as A));
    await progress.send("done", true);
    return result;
  };
}

/** The message of one step of a ranked read. */
function readProgressMessage(p: ReadProgress): string {
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
 * The listener a read tool hands to its ranked read (`ctx`: the handler
 * context {@link withProgress} passed on); undefined when the client did not
 * ask for progress and the call is no task.
 */
export function readProgress(ctx: ProgressContext): ((p: ReadProgress) => void) | undefined {
  const call = ctx.progress;
  if (!call) return undefined;
  return (p) => void call.send(readProgressMessage(p));
}
