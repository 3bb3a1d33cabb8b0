/** What the offload pipelines share: settings, clock, file system, events. */
import type { OffloadConfig } from "../config/offload-config.js";
import { LroError } from "../errors.js";
import {
  type LroEvent,
  type LroEventListener,
  type LroEvents,
  notifyListener,
} from "../events/events.js";
import type { OffloadFs } from "../materialize/offload-fs.js";
import { type PublishOffload, WriteFailedError } from "../materialize/write-jsonl.js";
import type { OffloadStoreBinding } from "../offload-store/offload-store.js";
import type { OffloadedFile } from "../types.js";

/** The engine's state, as the pipelines see it. */
export interface OffloadContext {
  readonly config: OffloadConfig;
  readonly events: LroEvents;
  /** The listener of the call being served (its `onEvent`): its events go there too. */
  readonly onEvent: LroEventListener | undefined;
  readonly fs: OffloadFs;
  readonly nativeExtraction: string | false;
  readonly onTempOpened: ((tempPath: string) => void) | undefined;
  /** The shared store's binding, when files are published (undefined: local files only). */
  readonly store: OffloadStoreBinding | undefined;
  /** Publishes each completed JSONL file to the shared store before it takes its name. */
  readonly publish: PublishOffload | undefined;
  now(): number;
  /** A fresh ULID at `time` (monotonic within the process). */
  nextId(time: number): string;
}

/** JSON of one line; `undefined`, functions and symbols have none and become `null`. */
export function serializeLine(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}

/** Any failure of the write path, as an `LroError`. */
export function asLroError(err: unknown): LroError {
  if (err instanceof LroError) return err;
  return new LroError("WRITE_FAILED", (err as Error)?.message ?? String(err), { cause: err });
}

/** The errno-style code behind an error (`ENOSPC`), else its LroError code. */
export function failureCode(err: LroError): string {
  const cause = (err as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === "string" ? cause.code : err.code;
}

/**
 * What a truncation warning says failed: the code, and for a quota refusal
 * its message too (it names the setting and the bytes at stake, which the
 * caller needs to act on; a disk error's message would say nothing more).
 */
export function failureReason(err: LroError): string {
  const code = failureCode(err);
  return code === "OFFLOAD_QUOTA_EXCEEDED" ? `${code}: ${err.message}` : code;
}

/** An event of the call being served: to the hub (sink, subscribers), then to the call's listener. */
function emit(ctx: OffloadContext, event: LroEvent): void {
  ctx.events.emit(event);
  if (ctx.onEvent) notifyListener(ctx.onEvent, event);
}

/** Emit `OffloadCreated` for a written file. */
export function emitCreated(ctx: OffloadContext, file: OffloadedFile): void {
  emit(ctx, {
    type: "OffloadCreated",
    time: new Date(ctx.now()).toISOString(),
    path: file.path,
    operation: file.header.operation,
    count: file.header.count,
    bytes: file.bytes,
    estimated_tokens: file.header.estimated_tokens,
    detail: file.header.detail,
  });
}

/** Emit `OffloadWriteFailed`. */
export function emitFailed(
  ctx: OffloadContext,
  operation: string,
  error: LroError,
  count: number,
  tokens: number,
): void {
  emit(ctx, {
    type: "OffloadWriteFailed",
    time: new Date(ctx.now()).toISOString(),
    operation,
    path: error instanceof WriteFailedError ? error.path : null,
    code: failureCode(error),
    error: error.message,
    count,
    estimated_tokens: tokens,
  });
}
