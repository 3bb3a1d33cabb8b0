/**
 * The public types of the jq engine (requests, results, options) and its
 * default limits.
 */
import type { LroError } from "../errors.js";

/** A JSON value (what a jq `--argjson` takes). */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** Limits and knobs of a {@link JqEngine}. */
export interface JqEngineOptions {
  /** Wall-clock limit of one run on a small input, in milliseconds (default 2000). */
  timeoutMs?: number;
  /**
   * Extra milliseconds allowed per MiB of input (default 100): jq needs about
   * as long as the jq CLI just to parse a large file (~30 MB/s), so a flat
   * 2 s would stop honest filters over 100,000 records.
   */
  timeoutMsPerMiB?: number;
  /** Cap on jq's WebAssembly heap, in bytes (default 1 GiB). */
  maxMemoryBytes?: number;
  /** Largest input accepted, in bytes (default 256 MiB): the input is copied into jq's in-memory file system. */
  maxInputBytes?: number;
  /** V8 heap limit of the worker (jq-web buffers output there), in MiB (default 768). */
  maxHeapMb?: number;
  /** Workers a large per-record run is split across (default: 2, or 1 on one CPU). */
  workers?: number;
  /** Inputs at least this large are split across the workers (default 4 MiB). */
  parallelMinBytes?: number;
  /** Split only when the 1-minute load average leaves a core idle (default true). */
  splitOnlyWhenIdle?: boolean;
  /**
   * Waiting places of one principal (default 16): runs waiting for a free
   * worker. One more of that principal waits for a place (`admitWaitMs`).
   */
  maxQueued?: number;
  /**
   * How long a run that found all of its principal's waiting places taken
   * waits, in its principal's line, for one to free (default 5000 ms); then it
   * is answered `BUSY`. 0 refuses it with `BUSY` at once.
   */
  admitWaitMs?: number;
  /**
   * Runs of one principal in that line at most (default 256): one more is
   * refused with `BUSY` at once. With `maxQueued`, it bounds the runs (and
   * their inputs) one principal's flood keeps waiting.
   */
  maxInLine?: number;
  /**
   * While runs are waiting, a running one is stopped (`BUSY`) once it has used
   * this fraction of its time limit's flat part (default 1/4; the per-MiB part
   * is kept whole, parsing a large input is not hogging).
   */
  contendedFraction?: number;
}

/** One jq run. */
export interface JqRunRequest {
  /**
   * The JSON text jq reads (concatenated values, e.g. JSONL records), with a key
   * naming its identity: the worker keeps the last input and skips the copy
   * when the key matches.
   */
  input: { key: string; bytes: Uint8Array };
  /** The jq program, exactly as the user wrote it. */
  filter: string;
  /** `-s`: the program sees one array of every input value. */
  slurp?: boolean;
  /** `-n`: the program starts from `null` (it may read the input with `inputs`). */
  nullInput?: boolean;
  /**
   * Stop after this many output values (jq's own `limit`, so a large run ends
   * early). Not applied to filters that read inputs themselves.
   */
  limit?: number;
  /**
   * Named jq variables (`$name`), any JSON values: passed as data (one JSON
   * document, see `buildInvocation`), never spliced into the program.
   */
  args?: Readonly<Record<string, JsonValue>>;
  /**
   * Who asked (e.g. a server's token): workers and waiting places are shared
   * fairly between principals (see `JqEngine`). Default: one shared principal.
   */
  principal?: string;
}

/** The outcome of a run: jq's output values (one compact JSON text each), or an error. */
export type JqRunResult = { ok: true; lines: string[] } | { ok: false; error: LroError };

/** Defaults of {@link JqEngineOptions} (workers: 2, or 1 on one CPU). */
export const JQ_ENGINE_DEFAULTS = {
  timeoutMs: 2000,
  timeoutMsPerMiB: 100,
  maxMemoryBytes: 1 << 30,
  maxInputBytes: 256 * 1024 * 1024,
  maxHeapMb: 768,
  parallelMinBytes: 4 * 1024 * 1024,
  splitOnlyWhenIdle: true,
  maxQueued: 16,
  admitWaitMs: 5000,
  maxInLine: 256,
  contendedFraction: 1 / 4,
};
