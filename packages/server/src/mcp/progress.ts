import type { ServerNotification } from "@modelcontextprotocol/sdk/types.js";

interface ProgressExtra {
  _meta?: { progressToken?: string | number };
  sendNotification?: (n: ServerNotification) => Promise<void>;
}

/** The request's `extra` (the SDK passes it last) when the client asked for progress. */
function progressOf(args: unknown[]): Required<ProgressExtra> | undefined {
  const extra = args[args.length - 1] as ProgressExtra | undefined;
  const token = extra?._meta?.progressToken;
  if (token === undefined || typeof extra?.sendNotification !== "function") return undefined;
  return extra as Required<ProgressExtra>;
}

/** Send one `notifications/progress` step (failures to notify never fail the call). */
function step(extra: Required<ProgressExtra>, progress: number, total: number, message: string) {
  const progressToken = extra._meta.progressToken as string | number;
  return extra
    .sendNotification({
      method: "notifications/progress",
      params: { progressToken, progress, total, message },
    })
    .catch(() => {});
}

/**
 * Progress for read tools, when the client sent a progress token: the query
 * (`handler`), then the LRO decision (estimate, and the write when it
 * offloads), then `done`.
 */
export function progressSteps<A extends unknown[], T>(
  handler: (...args: A) => T | Promise<T>,
): { handler: (...args: A) => Promise<T>; done: (args: unknown[]) => Promise<void> } {
  return {
    handler: async (...args: A) => {
      const extra = progressOf(args);
      if (extra) await step(extra, 0, 2, "querying the memory store");
      const out = await handler(...args);
      if (extra) await step(extra, 1, 2, "deciding inline or offload");
      return out;
    },
    done: async (args) => {
      const extra = progressOf(args);
      if (extra) await step(extra, 2, 2, "done");
    },
  };
}
