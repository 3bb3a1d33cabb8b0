/**
 * One jq worker thread (the engine's unit of isolation): started from
 * {@link JQ_WORKER_SOURCE}, one run at a time, killed and discarded when a run
 * overstays or poisons it. Its output never reaches this process's stdout.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { JQ_WORKER_SOURCE } from "./jq-worker-source.js";

/** What the worker posts back for one run. */
export interface WorkerReply {
  id?: number;
  ready?: boolean;
  ok?: boolean;
  kind?: "jq" | "no-input";
  stdout?: string;
  exitCode?: number | null;
  stderr?: string;
  message?: string;
  poisoned?: boolean;
}

/** What a worker needs to know at start. */
interface JqWorkerLimits {
  /** Cap on jq's WebAssembly heap, in bytes. */
  maxMemoryBytes: number;
  /** V8 heap limit of the worker, in MiB. */
  maxHeapMb: number;
}

let jqWebPath: string | undefined;
function resolveJqWeb(): string {
  jqWebPath ??= createRequire(import.meta.url).resolve("jq-web");
  return jqWebPath;
}

/** A live worker and what it holds. */
export class JqWorker {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  inputKey: string | null = null;
  private pending: ((reply: WorkerReply | Error) => void) | null = null;
  dead = false;

  constructor(options: JqWorkerLimits) {
    this.worker = new Worker(JQ_WORKER_SOURCE, {
      eval: true,
      workerData: { jqPath: resolveJqWeb(), maxMemoryBytes: options.maxMemoryBytes },
      env: {},
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb },
    });
    // Nothing the worker prints may reach our stdout (the protocol channel).
    this.worker.stdout.resume();
    this.worker.stderr.resume();
    this.worker.unref();
    this.ready = new Promise((resolve, reject) => {
      const onFirst = (reply: WorkerReply) => {
        if (reply.ready) resolve();
        else reject(new Error(`jq worker failed to start: ${reply.message ?? "unknown error"}`));
      };
      this.worker.once("message", onFirst);
      this.worker.once("error", reject);
    });
    this.ready.catch(() => {
      this.dead = true;
    });
    this.worker.on("message", (reply: WorkerReply) => {
      if (reply.id === undefined) return;
      const pending = this.pending;
      this.pending = null;
      pending?.(reply);
    });
    this.worker.on("error", (err) => {
      this.dead = true;
      const pending = this.pending;
      this.pending = null;
      pending?.(err);
    });
    this.worker.on("exit", () => {
      this.dead = true;
      const pending = this.pending;
      this.pending = null;
      pending?.(new Error("jq worker exited"));
    });
  }

  send(message: Record<string, unknown>): Promise<WorkerReply | Error> {
    return new Promise((resolve) => {
      this.pending = resolve;
      this.worker.ref();
      this.worker.postMessage(message);
    }).finally(() => {
      if (!this.dead) this.worker.unref();
    }) as Promise<WorkerReply | Error>;
  }

  kill(): void {
    this.dead = true;
    void this.worker.terminate();
  }
}
