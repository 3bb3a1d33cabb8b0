/**
 * The LRO engine: serialize each record once at the requested detail level,
 * estimate those bytes, decide, and either return them inline, write them to a
 * JSONL file and describe it, or (when writing fails) return a truncated inline
 * result with a warning. Never throws because of offloading. The pipelines are
 * in `records.ts` (memory profile) and `sections.ts` (generic profile).
 */
import { basename, isAbsolute, resolve } from "node:path";
import type { OffloadConfig } from "../config/offload-config.js";
import { type LroEventListener, LroEvents } from "../events/events.js";
import { offloadFileNaming, offloadIdFactory } from "../materialize/file-name.js";
import { nodeOffloadFs, type OffloadFs } from "../materialize/offload-fs.js";
import type { PublishOffload } from "../materialize/write-jsonl.js";
import type { OffloadStoreBinding } from "../offload-store/offload-store.js";
import { storePublisher, unpublish } from "../offload-store/publish.js";
import { sweepInBackground } from "../sweep/background.js";
import {
  type Sweeper,
  type SweeperOptions,
  type SweepOptions,
  startSweeper,
} from "../sweep/sweep.js";
import type { OffloadResponse } from "../types.js";
import { attachmentExtension, attachmentPaths, writeAttachment } from "./attachments.js";
import { asLroError, emitFailed, type OffloadContext } from "./context.js";
import { offloadRecords } from "./records.js";
import { offloadSections } from "./sections.js";
import type {
  OffloadRecordsInput,
  OffloadRecordsResult,
  OffloadSectionsInput,
  OffloadSectionsResult,
} from "./types.js";

export { STREAM_AFTER_CHARS } from "./records-pass.js";
export type * from "./types.js";

/** Options of an {@link Offloader}. */
export interface OffloaderOptions {
  config: OffloadConfig;
  /** Event hub (default: a new one logging JSON lines to stderr). */
  events?: LroEvents;
  /** Clock in epoch ms (default `Date.now`); drives ULIDs, timestamps, expiry. */
  now?: () => number;
  /** File-system primitives (default `node:fs/promises`); fault tests inject failures. */
  fs?: OffloadFs;
  /** The extraction tool guidance points to, or false for shell guidance (set by `registerLroExtract`). */
  nativeExtraction?: string | false;
  /** Test hook: called once the temporary file is open. */
  onTempOpened?: (tempPath: string) => void;
  /**
   * The offload store and the principal whose files these are (default: the
   * local file system only). Every JSONL file is published to it before its
   * descriptor is returned: a shared store keeps it for any instance to serve,
   * the local store keeps nothing; see `OffloadStore`.
   */
  store?: OffloadStoreBinding | undefined;
  /**
   * Delete this offloader's expired files in the background (default true):
   * from its first offload on, its directory is swept every
   * `sweepIntervalMs(ttlSeconds)` (a minute, or half the TTL when shorter),
   * deleting only files it can prove are ours and emitting
   * `OffloadFileExpired` for each, on a timer that never keeps the process
   * alive. Offloaders of one directory, prefix and TTL share one sweeper,
   * with the first one's clock and events. False when the application sweeps
   * the directory itself (`startSweeper`, `sweepOffloadDir`).
   */
  sweep?: boolean | undefined;
}

/** The engine. One instance per server; safe for concurrent calls. */
export class Offloader {
  readonly config: OffloadConfig;
  readonly events: LroEvents;
  /**
   * The extraction tool (`lro_extract`, or the name it was registered under)
   * guidance names instead of jq commands, or false; set by `registerLroExtract`.
   */
  nativeExtraction: string | false;
  private readonly now: () => number;
  private readonly fs: OffloadFs;
  private readonly onTempOpened: ((tempPath: string) => void) | undefined;
  private readonly nextUlid = offloadIdFactory();
  /** The store files are published to besides this disk (undefined: this disk only). */
  readonly store: OffloadStoreBinding | undefined;
  private readonly publish: PublishOffload | undefined;
  private sweep: boolean;
  /** Releases the background sweeping (see `OffloaderOptions.sweep`), once started. */
  private stopBackground: (() => void) | undefined;

  constructor(options: OffloaderOptions) {
    const dir = options.config.outputDir;
    this.config = {
      ...options.config,
      outputDir: isAbsolute(dir) ? dir : resolve(dir),
    };
    this.events = options.events ?? new LroEvents();
    this.now = options.now ?? Date.now;
    this.fs = options.fs ?? nodeOffloadFs;
    this.nativeExtraction = options.nativeExtraction ?? false;
    this.onTempOpened = options.onTempOpened;
    this.store = options.store;
    this.publish = this.store ? storePublisher(this.store, this.config) : undefined;
    this.sweep = options.sweep ?? true;
  }

  /**
   * The state the pipelines see, serving a call whose own listener is
   * `onEvent`; starts the background sweeper on the first offload.
   */
  private context(onEvent?: LroEventListener): OffloadContext {
    if (this.sweep && this.stopBackground === undefined) {
      this.stopBackground = sweepInBackground(this.sweepOptions());
    }
    return {
      config: this.config,
      events: this.events,
      onEvent,
      fs: this.fs,
      nativeExtraction: this.nativeExtraction,
      onTempOpened: this.onTempOpened,
      store: this.store,
      publish: this.publish,
      now: this.now,
      nextId: (time) => this.nextUlid(time),
    };
  }

  /**
   * Estimate the records at `detail` and decide: inline (at or below the
   * threshold, or LRO disabled), offloaded (file + `OffloadResponse`), or
   * truncated (the write failed; an `OffloadWriteFailed` event was emitted).
   * Throws only if a record cannot be serialized as JSON (the result could not
   * have been returned inline either). Events go to the hub and to
   * `input.onEvent`.
   */
  offloadRecords<D = OffloadResponse>(
    input: OffloadRecordsInput<D>,
  ): Promise<OffloadRecordsResult<D>> {
    return offloadRecords(this.context(input.onEvent), input);
  }

  /**
   * The generic profile: each section's items become one JSONL file (header
   * line first), described by the multi-section descriptor. Estimated over all
   * sections together; `force` offloads regardless of the threshold. Events
   * go to the hub and to `input.onEvent`.
   */
  offloadSections(input: OffloadSectionsInput): Promise<OffloadSectionsResult> {
    return offloadSections(this.context(input.onEvent), input);
  }

  /**
   * Write binary content (an image, audio, a blob) to an attachment file of
   * its own, `{prefix}-{operation}-{ulid}.{ext}` (0600, swept after the TTL).
   * Throws `WriteFailedError`.
   */
  writeAttachment(input: {
    operation: string;
    data: Uint8Array;
    mimeType?: string | undefined;
  }): Promise<{ path: string; bytes: number }> {
    return writeAttachment(this.context(), {
      operation: input.operation,
      createdAt: this.now(),
      data: input.data,
      extension: attachmentExtension(input.mimeType),
    });
  }

  /**
   * Emit `OffloadWriteFailed` for a write that failed outside the record and
   * section pipelines (an attachment of a call result); those emit their own.
   * To the hub, and to `onEvent`, the listener of the call that failed.
   */
  reportWriteFailure(
    operation: string,
    error: unknown,
    tokens: number,
    onEvent?: LroEventListener,
  ): void {
    emitFailed(this.context(onEvent), operation, asLroError(error), 0, tokens);
  }

  /**
   * Delete files this offloader wrote (e.g. attachments of a result that
   * failed, each with its record); never throws.
   */
  async removeFiles(paths: readonly string[]): Promise<void> {
    const naming = offloadFileNaming(this.config.filePrefix);
    for (const p of paths) {
      const files = naming.parse(basename(p))?.attachment ? attachmentPaths(p) : [p];
      for (const f of files) await this.fs.unlink(f).catch(() => {});
      await unpublish(this.store, p);
    }
  }

  /** Stop the background sweeper (an in-flight sweep finishes); offloading goes on unswept. */
  stopSweeping(): void {
    this.stopBackground?.();
    this.stopBackground = undefined;
    this.sweep = false;
  }

  /** Start the custodial sweeper on this offloader's directory, TTL, clock and events. */
  startSweeper(options: Partial<SweeperOptions> = {}): Sweeper {
    return startSweeper({ ...this.sweepOptions(), ...options });
  }

  private sweepOptions(): SweepOptions {
    return {
      dir: this.config.outputDir,
      ttlSeconds: this.config.ttlSeconds,
      now: this.now,
      events: this.events,
      fs: this.fs,
      filePrefix: this.config.filePrefix,
    };
  }
}
