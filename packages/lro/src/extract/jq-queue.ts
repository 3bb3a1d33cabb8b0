/**
 * The jq engine's waiting runs: one queue per principal (a server's token, say),
 * so one principal's flood neither fills the others' waiting places nor goes
 * first when a worker frees up. Each principal has `places` waiting places;
 * a run arriving when all of its principal's are taken waits in its
 * principal's line for one to free (in arrival order, each for a bounded
 * time), so a burst of honest runs a little larger than the places is served
 * rather than refused, and a flood only lengthens its own principal's line.
 */

/** What the queue needs of a waiting run. */
interface QueuedRun {
  principal: string;
  /** `performance.now()` when it was queued. */
  queuedAt: number;
}

/** A run in its principal's line, and the timer that ends its wait. */
interface Lined<J> {
  job: J;
  timer: NodeJS.Timeout;
}

export class FairQueue<J extends QueuedRun> {
  private readonly queues = new Map<string, J[]>();
  /** Runs waiting for one of their principal's places, oldest first. */
  private readonly lines = new Map<string, Lined<J>[]>();
  private count = 0;

  /** @param places Waiting places of each principal. */
  constructor(private readonly places: number) {}

  /** Runs waiting, all principals together. */
  get length(): number {
    return this.count;
  }

  /** Runs of `principal` waiting. */
  waiting(principal: string): number {
    return this.queues.get(principal)?.length ?? 0;
  }

  /** Runs of `principal` waiting in its line for a place. */
  inLine(principal: string): number {
    return this.lines.get(principal)?.length ?? 0;
  }

  /** Whether a new run of `principal` has no place: all are taken, or runs already wait in its line. */
  full(principal: string): boolean {
    return this.waiting(principal) >= this.places || this.lines.has(principal);
  }

  /**
   * Put a run that found no place in its principal's line: it takes the next
   * place that frees, unless `waitMs` pass first (then `expire` answers it).
   */
  line(job: J, waitMs: number, expire: (job: J) => void): void {
    let line = this.lines.get(job.principal);
    if (!line) {
      line = [];
      this.lines.set(job.principal, line);
    }
    const entry: Lined<J> = {
      job,
      timer: setTimeout(() => {
        const at = line.indexOf(entry);
        if (at >= 0) line.splice(at, 1);
        if (line.length === 0 && this.lines.get(job.principal) === line) {
          this.lines.delete(job.principal);
        }
        expire(job);
      }, waitMs),
    };
    line.push(entry);
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
    this.admit(best.principal);
    return job;
  }

  /** Remove and return every waiting run, lined ones included. */
  drain(): J[] {
    const all = [...this.queues.values()].flat();
    for (const line of this.lines.values()) {
      for (const { job, timer } of line) {
        clearTimeout(timer);
        all.push(job);
      }
    }
    this.queues.clear();
    this.lines.clear();
    this.count = 0;
    return all;
  }

  /** Move the oldest runs of `principal`'s line into its free places. */
  private admit(principal: string): void {
    const line = this.lines.get(principal);
    while (line && line.length > 0 && this.waiting(principal) < this.places) {
      const { job, timer } = line.shift() as Lined<J>;
      clearTimeout(timer);
      this.push(job);
    }
    if (line?.length === 0) this.lines.delete(principal);
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
