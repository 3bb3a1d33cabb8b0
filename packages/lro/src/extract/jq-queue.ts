/**
 * The jq engine's waiting runs: one queue per principal (a server's token, say),
 * so one principal's flood neither fills the others' waiting places nor goes
 * first when a worker frees up.
 */

/** What the queue needs of a waiting run. */
export interface QueuedRun {
  principal: string;
  /** `performance.now()` when it was queued. */
  queuedAt: number;
}

export class FairQueue<J extends QueuedRun> {
  private readonly queues = new Map<string, J[]>();
  private count = 0;

  /** Runs waiting, all principals together. */
  get length(): number {
    return this.count;
  }

  /** Runs of `principal` waiting. */
  waiting(principal: string): number {
    return this.queues.get(principal)?.length ?? 0;
  }

  /** Queue a new run (the newest end). */
  push(job: J): void {
    this.of(job.principal).push(job);
    this.count++;
  }

  /** Put a run back at the oldest end of its principal's queue. */
  unshift(job: J): void {
    this.of(job.principal).unshift(job);
    this.count++;
  }

  /**
   * The next run to start. Between principals: the one with the fewest runs
   * on workers now (`running`), then the one whose oldest run has waited
   * longest; so a principal with nothing running is served before one holding
   * every worker, however many runs the latter queued. Within a principal:
   * its newest run, unless its oldest has waited `patienceMs` (the run a user
   * waits on is most likely the latest; an older one still starts in time).
   */
  next(running: (principal: string) => number, patienceMs: number): J | undefined {
    let best: { principal: string; queue: J[]; running: number } | undefined;
    for (const [principal, queue] of this.queues) {
      const head = queue[0] as J;
      const r = running(principal);
      if (
        !best ||
        r < best.running ||
        (r === best.running && head.queuedAt < (best.queue[0] as J).queuedAt)
      ) {
        best = { principal, queue, running: r };
      }
    }
    if (!best) return undefined;
    const waited = performance.now() - (best.queue[0] as J).queuedAt;
    const job = (waited >= patienceMs ? best.queue.shift() : best.queue.pop()) as J;
    if (best.queue.length === 0) this.queues.delete(best.principal);
    this.count--;
    return job;
  }

  /** Remove and return every waiting run. */
  drain(): J[] {
    const all = [...this.queues.values()].flat();
    this.queues.clear();
    this.count = 0;
    return all;
  }

  private of(principal: string): J[] {
    let queue = this.queues.get(principal);
    if (!queue) {
      queue = [];
      this.queues.set(principal, queue);
    }
    return queue;
  }
}
