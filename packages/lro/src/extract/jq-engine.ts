/**
 * A real jq (jq 1.7.1 compiled to WebAssembly by `jq-web`) run off the main
 * thread in a warm worker, with a wall-clock limit and a memory bound. A filter
 * that runs away is stopped, reported as `FILTER_ABORTED`, and the worker is
 * replaced at once, so the next call is answered normally.
 */
import { availableParallelism, loadavg } from "node:os";
import { LroError } from "../errors.js";
import {
  buildInvocation,
  busyError,
  checkRequest,
  jqFailure,
  splitLines,
  stoppedError,
} from "./jq-invocation.js";
import {
  JQ_ENGINE_DEFAULTS,
  type JqEngineOptions,
  type JqRunRequest,
  type JqRunResult,
} from "./jq-options.js";
import { FairQueue } from "./jq-queue.js";
import { JqWorker, type WorkerReply } from "./jq-worker.js";

export type { JqEngineOptions, JqRunRequest, JqRunResult, JsonValue } from "./jq-options.js";

interface Job {
  request: JqRunRequest;
  /** `request.principal`, or the shared default. */
  principal: string;
  resolve: (result: JqRunResult) => void;
  /** `performance.now()` when it was queued. */
  queuedAt: number;
  /** Times it was stopped for waiting runs; the first time it waits again. */
  preempted: number;
}

/** What one worker returned for one chunk: a reply, a timeout, a preemption, or a crash. */
type Attempt = WorkerReply | "timeout" | "preempted" | Error;

/** A run on a worker, as the preemption check sees it. */
interface RunningAttempt {
  startedAt: number;
  contendedMs: number;
  preempt(): void;
}

/**
 * jq in-process, sandboxed: `workers` warm workers each run one job at a time;
 * a job past its time limit, or one that exhausts the memory cap, kills its
 * worker, which is replaced immediately. A per-record filter over a large
 * input, arriving when every worker is free, is split at line boundaries
 * across them and the outputs concatenated in order (jq treats each input
 * value independently, so the values are the same); any jq error there reruns
 * the whole input on one worker, so messages and semantics stay exactly jq's.
 *
 * Fairness: a filter that never ends holds a worker for its whole time limit,
 * so with a plain queue ten of them would make an eleventh, harmless run wait
 * ten limits.
 * - While runs wait, a run that has used its *contended* slice (1/4 of the
 *   limit's flat part: 500 ms of 2 s) is stopped: no run hogs a worker under
 *   contention. The first time, it waits again at the head of the queue (a
 *   harmless run merely starved of CPU gets a second slice); the second time
 *   it is answered `BUSY`.
 * - The newest waiting run starts first, unless the oldest has waited a whole
 *   limit: the run a user waits on is most likely the latest, and it should
 *   not pay a slice and a worker restart per runaway ahead of it.
 * - Between principals (`request.principal`, e.g. a server's tokens), the
 *   one with the fewest runs on workers goes first, and each has `maxQueued`
 *   waiting places; one more of it waits up to `admitWaitMs` in its own line
 *   (at most `maxInLine` long: memory stays bounded) for a place, then is
 *   answered `BUSY`: one principal's flood of runaways fills its own places
 *   and line only, and another's harmless run starts at the next free worker
 *   (a slice away). A burst of honest runs of one principal past its places
 *   (50 agents on one token) is served, not refused.
 * So a harmless run answers in about a slice and a restart, an older one
 * within about one limit, and a run alone keeps its full limit. Not chosen:
 * more workers (each may hold up to `maxMemoryBytes` + `maxHeapMb`, so memory
 * bounds them long before runaways do).
 */
export class JqEngine {
  private readonly options: Required<JqEngineOptions>;
  private readonly slots: (JqWorker | null)[];
  private readonly queue: FairQueue<Job>;
  /** Runs on workers now, per principal (for the choice between principals). */
  private readonly runningOf = new Map<string, number>();
  /** Slots with a job on them. */
  private readonly inUse: boolean[];
  private readonly running = new Set<RunningAttempt>();
  private closed = false;
  private nextId = 1;

  constructor(options: JqEngineOptions = {}) {
    this.options = {
      timeoutMs: options.timeoutMs ?? JQ_ENGINE_DEFAULTS.timeoutMs,
      timeoutMsPerMiB: options.timeoutMsPerMiB ?? JQ_ENGINE_DEFAULTS.timeoutMsPerMiB,
      maxMemoryBytes: options.maxMemoryBytes ?? JQ_ENGINE_DEFAULTS.maxMemoryBytes,
      maxInputBytes: options.maxInputBytes ?? JQ_ENGINE_DEFAULTS.maxInputBytes,
      maxHeapMb: options.maxHeapMb ?? JQ_ENGINE_DEFAULTS.maxHeapMb,
      workers: Math.max(1, options.workers ?? Math.min(2, availableParallelism())),
      parallelMinBytes: options.parallelMinBytes ?? JQ_ENGINE_DEFAULTS.parallelMinBytes,
      splitOnlyWhenIdle: options.splitOnlyWhenIdle ?? JQ_ENGINE_DEFAULTS.splitOnlyWhenIdle,
      maxQueued: Math.max(0, options.maxQueued ?? JQ_ENGINE_DEFAULTS.maxQueued),
      contendedFraction: options.contendedFraction ?? JQ_ENGINE_DEFAULTS.contendedFraction,
      admitWaitMs: Math.max(0, options.admitWaitMs ?? JQ_ENGINE_DEFAULTS.admitWaitMs),
      maxInLine: Math.max(0, options.maxInLine ?? JQ_ENGINE_DEFAULTS.maxInLine),
    };
    this.queue = new FairQueue<Job>(this.options.maxQueued);
    this.slots = Array.from({ length: this.options.workers }, () => null);
    this.inUse = this.slots.map(() => false);
  }

  /** The limits in force. */
  get limits(): Readonly<Required<JqEngineOptions>> {
    return this.options;
  }

  /** Workers currently alive (for observability and tests). */
  get liveWorkers(): number {
    return this.slots.filter((w) => w !== null && !w.dead).length;
  }

  /** Start the first worker now (it is otherwise started by the first run). */
  async warm(): Promise<void> {
    await this.worker(0).ready;
  }

  /** Run jq; never throws: failures come back as `{ ok: false, error }`. */
  run(request: JqRunRequest): Promise<JqRunResult> {
    if (this.closed) {
      return Promise.resolve({
        ok: false,
        error: new LroError("FILTER_ABORTED", "the jq engine has been closed"),
      });
    }
    const refused = checkRequest(request, this.options.maxInputBytes);
    if (refused) return Promise.resolve({ ok: false, error: refused });
    const principal = request.principal ?? "";
    const { admitWaitMs, maxQueued, maxInLine } = this.options;
    const full = !this.inUse.includes(false) && this.queue.full(principal);
    const inLine = this.queue.inLine(principal);
    if (full && (admitWaitMs <= 0 || maxQueued === 0 || inLine >= maxInLine)) {
      const waiting = this.queue.waiting(principal);
      return Promise.resolve({
        ok: false,
        error: busyError(this.inUse.length, waiting, { inLine }),
      });
    }
    return new Promise((resolve) => {
      const job = { request, principal, resolve, queuedAt: performance.now(), preempted: 0 };
      if (!full) {
        this.queue.push(job);
        this.pump();
        return;
      }
      this.queue.line(job, admitWaitMs, () =>
        resolve({
          ok: false,
          error: busyError(this.inUse.length, maxQueued, { waitedMs: admitWaitMs }),
        }),
      );
    });
  }

  /** Stop the workers; later runs fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.drain()) {
      job.resolve({ ok: false, error: new LroError("FILTER_ABORTED", "the jq engine was closed") });
    }
    const workers = this.slots.splice(0).filter((w): w is JqWorker => w !== null);
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }

  /** The wall-clock limit of a run over `bytes` of input. */
  timeLimit(bytes: number): number {
    return Math.ceil(this.options.timeoutMs + (bytes / 2 ** 20) * this.options.timeoutMsPerMiB);
  }

  /** The limit of a run over `bytes` while other runs wait (see the class comment). */
  contendedLimit(bytes: number): number {
    return Math.ceil(
      this.options.timeoutMs * this.options.contendedFraction +
        (bytes / 2 ** 20) * this.options.timeoutMsPerMiB,
    );
  }

  private worker(slot: number): JqWorker {
    let w = this.slots[slot];
    if (!w || w.dead) {
      w = new JqWorker(this.options);
      this.slots[slot] = w;
    }
    return w;
  }

  /** Kill a slot's worker and start its replacement at once, so the next job finds it warm. */
  private replace(slot: number): void {
    this.slots[slot]?.kill();
    this.slots[slot] = null;
    if (!this.closed) this.worker(slot).ready.catch(() => {});
  }

  /**
   * The next job to start: of the principal with the fewest runs on workers,
   * the newest, unless its oldest has waited a whole time limit. Behind a
   * burst of runaways the run a user is waiting for is most likely the latest,
   * and it should not pay one restart per runaway ahead of it; an older run
   * still starts within about one limit.
   */
  private nextJob(): Job | undefined {
    return this.queue.next((p) => this.runningOf.get(p) ?? 0, this.options.timeoutMs);
  }

  private countRunning(principal: string, delta: 1 | -1): void {
    const n = (this.runningOf.get(principal) ?? 0) + delta;
    if (n > 0) this.runningOf.set(principal, n);
    else this.runningOf.delete(principal);
  }

  /**
   * Start waiting jobs on free slots (see {@link nextJob}). A splittable job
   * takes every slot when all are free and nobody waits behind it. With no
   * slot free, runs past their contended slice are stopped to make room.
   */
  private pump(): void {
    while (this.queue.length > 0) {
      const free = this.inUse.flatMap((used, slot) => (used ? [] : [slot]));
      if (free.length === 0) {
        this.preemptOverdue();
        return;
      }
      const job = this.nextJob() as Job;
      const all = free.length === this.slots.length && this.queue.length === 0;
      const slots = all && this.splittable(job.request) ? free : free.slice(0, 1);
      for (const slot of slots) this.inUse[slot] = true;
      this.countRunning(job.principal, 1);
      void this.execute(job.request, slots)
        .catch(
          (err: unknown): JqRunResult => ({
            ok: false,
            error: new LroError("FILTER_ABORTED", `the jq filter was stopped: ${String(err)}`),
          }),
        )
        .then((result) => {
          for (const slot of slots) this.inUse[slot] = false;
          this.countRunning(job.principal, -1);
          // Stopped for waiting runs the first time: back to the oldest end of
          // the queue, so a harmless run merely starved of CPU (a busy host)
          // gets a second slice; a runaway is answered BUSY the second time.
          const again = !result.ok && result.error.code === "BUSY" && job.preempted++ === 0;
          if (again && !this.closed) this.queue.unshift(job);
          else job.resolve(result);
          this.pump();
        });
    }
  }

  /** Stop every run that has used its contended slice (others are waiting). */
  private preemptOverdue(): void {
    const now = performance.now();
    for (const r of this.running) if (now - r.startedAt >= r.contendedMs) r.preempt();
  }

  /**
   * Whether `request` may be split across workers: per-record, large, no
   * builtin that reads other inputs or stops the program, and a core to spare
   * (on a saturated machine two workers only contend).
   */
  private splittable(request: JqRunRequest): boolean {
    return (
      this.options.workers > 1 &&
      (!this.options.splitOnlyWhenIdle || (loadavg()[0] ?? 0) <= availableParallelism() - 1) &&
      !request.slurp &&
      !request.nullInput &&
      request.input.bytes.byteLength >= this.options.parallelMinBytes &&
      !/input|halt|\$__loc__/.test(request.filter)
    );
  }

  private async execute(request: JqRunRequest, slots: number[]): Promise<JqRunResult> {
    const result = await this.executeOnce(request, slots);
    if (
      !result.ok &&
      request.limit !== undefined &&
      /jq: \d+ compile errors?$/.test(result.error.message)
    ) {
      // The limit wrapper moves jq's syntax-error position; compile without it
      // so the message is jq's own (compiling is instant).
      const { limit: _, ...unwrapped } = request;
      return this.executeOnce(unwrapped, slots);
    }
    return result;
  }

  private async executeOnce(request: JqRunRequest, slots: number[]): Promise<JqRunResult> {
    if (slots.length > 1) {
      const split = await this.executeSplit(request, slots);
      if (split) return split;
    }
    const slot = slots[0] as number;
    const limitMs = this.timeLimit(request.input.bytes.byteLength);
    const attempt = await this.attempt(slot, request, request.input, limitMs);
    return this.settle(slot, attempt, request, limitMs);
  }

  /**
   * Run `request` in chunks on every slot at once. Returns undefined when jq
   * reported an error in some chunk (the caller reruns the whole input, so the
   * message and the partial-output semantics are jq's own).
   */
  private async executeSplit(
    request: JqRunRequest,
    slots: number[],
  ): Promise<JqRunResult | undefined> {
    const bytes = request.input.bytes;
    const k = slots.length;
    const chunks: { key: string; bytes: Uint8Array }[] = [];
    let start = 0;
    for (let i = 1; i <= k && start < bytes.byteLength; i++) {
      let end = bytes.byteLength;
      if (i < k) {
        const nl = bytes.indexOf(0x0a, Math.floor((bytes.byteLength * i) / k));
        end = nl < 0 ? bytes.byteLength : nl + 1;
      }
      chunks.push({ key: `${request.input.key}#${i}/${k}`, bytes: bytes.subarray(start, end) });
      start = end;
    }
    const limitMs = this.timeLimit(bytes.byteLength);
    const attempts = await Promise.all(
      chunks.map((c, i) => this.attempt(slots[i] as number, request, c, limitMs)),
    );
    const lines: string[] = [];
    for (const [i, attempt] of attempts.entries()) {
      const outcome = this.settle(slots[i] as number, attempt, request, limitMs);
      if (outcome.ok) {
        for (const line of outcome.lines) lines.push(line);
        continue;
      }
      if (outcome.error.code === "FILTER_ABORTED" || outcome.error.code === "BUSY") {
        for (let j = 0; j < attempts.length; j++) if (j !== i) this.replace(slots[j] as number);
        return outcome;
      }
      return undefined;
    }
    return { ok: true, lines };
  }

  /** Send one run to a slot's worker and wait for its reply, a crash, or the limit. */
  private async attempt(
    slot: number,
    request: JqRunRequest,
    input: { key: string; bytes: Uint8Array },
    limitMs: number,
  ): Promise<Attempt> {
    let w: JqWorker;
    try {
      w = this.worker(slot);
      await w.ready;
    } catch (err) {
      this.replace(slot);
      return new Error(`jq is unavailable: ${(err as Error).message}`);
    }
    const { flags, sent } = buildInvocation(request);
    const message: Record<string, unknown> = {
      id: this.nextId++,
      filter: sent,
      flags,
      inputKey: input.key,
    };
    if (w.inputKey !== input.key) message.input = input.bytes;
    w.inputKey = input.key;
    const contendedMs = this.contendedLimit(input.bytes.byteLength);
    let timer: NodeJS.Timeout | undefined;
    let slice: NodeJS.Timeout | undefined;
    let entry: RunningAttempt | undefined;
    const stopped = new Promise<"timeout" | "preempted">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), limitMs);
      const run: RunningAttempt = {
        startedAt: performance.now(),
        contendedMs,
        preempt: () => resolve("preempted"),
      };
      entry = run;
      // At the end of its slice a run yields if others are waiting by then.
      slice = setTimeout(() => {
        if (this.queue.length > 0) run.preempt();
      }, contendedMs);
    });
    if (entry) this.running.add(entry);
    const reply = await Promise.race([w.send(message), stopped]);
    clearTimeout(timer);
    clearTimeout(slice);
    if (entry) this.running.delete(entry);
    if (typeof reply !== "string" && !(reply instanceof Error) && reply.kind === "no-input") {
      // The worker lost its copy (it was poisoned and cleared); send it again.
      w.inputKey = null;
      return this.attempt(slot, request, input, limitMs);
    }
    return reply;
  }

  /** Turn a slot's attempt into a result, replacing the worker when it is unusable. */
  private settle(
    slot: number,
    attempt: Attempt,
    request: JqRunRequest,
    limitMs: number,
  ): JqRunResult {
    if (attempt === "preempted" || attempt === "timeout" || attempt instanceof Error) {
      this.replace(slot);
      const ms =
        attempt === "preempted" ? this.contendedLimit(request.input.bytes.byteLength) : limitMs;
      return { ok: false, error: stoppedError(attempt, ms) };
    }
    if (attempt.ok) {
      const stdout = attempt.stdout ?? "";
      return { ok: true, lines: stdout === "" ? [] : splitLines(stdout) };
    }
    if (attempt.poisoned) this.replace(slot);
    return { ok: false, error: jqFailure(attempt, buildInvocation(request).hidden, this.options) };
  }
}
