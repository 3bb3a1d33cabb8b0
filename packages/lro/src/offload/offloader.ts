/**
 * The LRO engine: serialize each record once at the requested detail level,
 * estimate those bytes, decide, and either return them inline, write them to a
 * JSONL file and describe it, or (when writing fails) return a truncated inline
 * result with a warning. Never throws because of offloading.
 */
import { isAbsolute, resolve } from "node:path";
import { monotonicFactory } from "ulid";
import type { OffloadConfig } from "../config/offload-config.js";
import { buildGenericDescriptor, type DescribedSection } from "../descriptor/generic-descriptor.js";
import { inferLineSchema } from "../descriptor/infer-schema.js";
import { buildMemoryDescriptor, recordStats } from "../descriptor/memory-descriptor.js";
import { projectRecord } from "../descriptor/project.js";
import { LroError } from "../errors.js";
import { estimateLines, type LinesEstimate } from "../estimate/estimate.js";
import { LroEvents } from "../events/events.js";
import { nodeOffloadFs, type OffloadFs } from "../materialize/offload-fs.js";
import { ensureOutputDir, WriteFailedError, writeJsonlFile } from "../materialize/write-jsonl.js";
import { type Sweeper, type SweeperOptions, startSweeper } from "../sweep/sweep.js";
import {
  DETAIL_LEVELS,
  type DetailLevel,
  type GenericOffloadResponse,
  MIF_SCHEMA_VERSION,
  type OffloadedFile,
  type OffloadHeader,
  type OffloadResponse,
} from "../types.js";
import { linesThatFit, reserveFor, truncationWarning } from "./truncate.js";

/** Options of an {@link Offloader}. */
export interface OffloaderOptions {
  config: OffloadConfig;
  /** Event hub (default: a new one logging JSON lines to stderr). */
  events?: LroEvents;
  /** Clock in epoch ms (default `Date.now`); drives ULIDs, timestamps, expiry. */
  now?: () => number;
  /** File-system primitives (default `node:fs/promises`); fault tests inject failures. */
  fs?: OffloadFs;
  /** Guidance points to the `lro_extract` tool (set by `registerLroExtract`). */
  nativeExtraction?: boolean;
  /** Test hook: called once the temporary file is open. */
  onTempOpened?: (tempPath: string) => void;
}

/** A memory result set to consider for offloading. */
export interface OffloadRecordsInput {
  /** `recall`, `search`, `inject`, `list` (or a producer's own name). */
  operation: string;
  query?: string | null;
  detail: DetailLevel;
  /** Memory records; projected to `detail` unless `project` is false. */
  records: readonly object[];
  /** Scores of the hits, aligned with `records`, when the operation has them. */
  scores?: readonly number[] | undefined;
  /** Project records to `detail` (default true; idempotent on projected records). */
  project?: boolean;
}

/** The result stays inline; `lines` are the serialized records (reuse them). */
export interface InlineOutcome {
  kind: "inline";
  estimatedTokens: number;
  lines: string[];
}

/** The result was written; `response` replaces it. */
export interface OffloadedOutcome {
  kind: "offloaded";
  estimatedTokens: number;
  response: OffloadResponse;
  file: OffloadedFile;
}

/** Writing failed; return `records` (the leading ones that fit) with `warning`. */
export interface TruncatedOutcome {
  kind: "truncated";
  estimatedTokens: number;
  /** The kept records, projected to the detail level. */
  records: Record<string, unknown>[];
  /** The kept records, serialized. */
  lines: string[];
  /** Records in the full result. */
  total: number;
  warning: string;
  error: LroError;
}

/** Outcome of {@link Offloader.offloadRecords}. */
export type OffloadRecordsResult = InlineOutcome | OffloadedOutcome | TruncatedOutcome;

/** One section of a generic result: its items become the file's lines. */
export interface OffloadSection {
  /** Key in the descriptor's maps (e.g. `results`). */
  key: string;
  items: readonly unknown[];
  /** Schema description (default: header-then-data note). */
  description?: string;
  /** Summary (default `{count}`). */
  summary?: Record<string, unknown>;
  /** Custom recipes with `{key_file}` placeholders (default: list, count, first 10). */
  recipes?: Record<string, string>;
}

/** A generic result set to consider for offloading. */
export interface OffloadSectionsInput {
  /** Goes into file names: `atlatl-{operation}-{ulid}.jsonl` (e.g. `extract`). */
  operation: string;
  query?: string | null;
  sections: readonly OffloadSection[];
  /** Keys copied verbatim into the descriptor (the Python library's `inline_keys`). */
  inline?: Record<string, unknown>;
  /** `detail` written into the header lines (default `raw`). */
  detail?: string;
  /** Offload regardless of `enabled` and the threshold (the caller has decided). */
  force?: boolean;
}

/** Outcome of {@link Offloader.offloadSections}. */
export type OffloadSectionsResult =
  | { kind: "inline"; estimatedTokens: number; lines: string[][] }
  | {
      kind: "offloaded";
      estimatedTokens: number;
      response: GenericOffloadResponse;
      files: OffloadedFile[];
    }
  | {
      kind: "truncated";
      estimatedTokens: number;
      sections: { key: string; items: unknown[]; total: number }[];
      warning: string;
      error: LroError;
    };

function serialize(value: unknown): string {
  // `undefined`, functions and symbols have no JSON; their line is `null`.
  return JSON.stringify(value) ?? "null";
}

function asLroError(err: unknown): LroError {
  if (err instanceof LroError) return err;
  return new LroError("WRITE_FAILED", (err as Error)?.message ?? String(err), { cause: err });
}

/** The errno-style code behind an error (`ENOSPC`), else its LroError code. */
function failureCode(err: LroError): string {
  const cause = (err as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === "string" ? cause.code : err.code;
}

/** The engine. One instance per server; safe for concurrent calls. */
export class Offloader {
  readonly config: OffloadConfig;
  readonly events: LroEvents;
  /** Guidance names `lro_extract` instead of jq commands; set by `registerLroExtract`. */
  nativeExtraction: boolean;
  private readonly now: () => number;
  private readonly fs: OffloadFs;
  private readonly onTempOpened: ((tempPath: string) => void) | undefined;
  private readonly nextUlid = monotonicFactory();

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
  }

  /**
   * Estimate the records at `detail` and decide: inline (at or below the
   * threshold, or LRO disabled), offloaded (file + `OffloadResponse`), or
   * truncated (the write failed; an `OffloadWriteFailed` event was emitted).
   */
  async offloadRecords(input: OffloadRecordsInput): Promise<OffloadRecordsResult> {
    const detail: DetailLevel = DETAIL_LEVELS.includes(input.detail) ? input.detail : "full";
    const project = input.project ?? true;
    const records = project
      ? input.records.map((r) => projectRecord(r, detail))
      : (input.records as Record<string, unknown>[]);
    const lines = records.map(serialize);
    const estimate = await estimateLines(lines);
    const tokens = estimate.tokens;
    if (!this.config.enabled || tokens <= this.config.thresholdTokens) {
      return { kind: "inline", estimatedTokens: tokens, lines };
    }

    const createdAt = this.now();
    const id = this.nextUlid(createdAt);
    const header: OffloadHeader = {
      type: "lro_header",
      operation: input.operation,
      query: input.query ?? null,
      count: lines.length,
      schema_version: MIF_SCHEMA_VERSION,
      timestamp: new Date(createdAt).toISOString(),
      estimated_tokens: tokens,
      detail,
    };
    let written: { path: string; bytes: number } | undefined;
    try {
      await ensureOutputDir(this.fs, this.config.outputDir);
      written = await writeJsonlFile({
        fs: this.fs,
        dir: this.config.outputDir,
        operation: input.operation,
        id,
        headerLine: JSON.stringify(header),
        lines,
        ...(this.onTempOpened ? { onTempOpened: this.onTempOpened } : {}),
      });
      const response = buildMemoryDescriptor({
        filePath: written.path,
        operation: input.operation,
        detail,
        count: lines.length,
        estimatedTokens: tokens,
        stats: recordStats(records),
        scores: input.scores,
        nativeExtraction: this.nativeExtraction,
      });
      const file: OffloadedFile = {
        path: written.path,
        header,
        ttlSeconds: this.config.ttlSeconds,
        createdAt,
        bytes: written.bytes,
      };
      this.emitCreated(file);
      return { kind: "offloaded", estimatedTokens: tokens, response, file };
    } catch (err) {
      if (written) await this.fs.unlink(written.path).catch(() => {});
      const error = asLroError(err);
      this.emitFailed(input.operation, error, lines.length, tokens);
      const warning0 = truncationWarning(
        failureCode(error),
        lines.length,
        lines.length,
        this.config.thresholdTokens,
      );
      const kept = linesThatFit(
        lines,
        estimate,
        this.config.thresholdTokens - reserveFor(warning0),
      ).count;
      return {
        kind: "truncated",
        estimatedTokens: tokens,
        records: records.slice(0, kept),
        lines: lines.slice(0, kept),
        total: lines.length,
        warning: truncationWarning(
          failureCode(error),
          kept,
          lines.length,
          this.config.thresholdTokens,
        ),
        error,
      };
    }
  }

  /**
   * The generic profile: each section's items become one JSONL file (header
   * line first), described by the multi-section descriptor. Estimated over all
   * sections together.
   */
  async offloadSections(input: OffloadSectionsInput): Promise<OffloadSectionsResult> {
    const sectionLines = input.sections.map((s) => s.items.map(serialize));
    const estimates: LinesEstimate[] = [];
    for (const lines of sectionLines) estimates.push(await estimateLines(lines));
    const tokens = estimates.reduce((sum, e) => sum + e.tokens, 0);
    const offload = input.force || (this.config.enabled && tokens > this.config.thresholdTokens);
    if (!offload) return { kind: "inline", estimatedTokens: tokens, lines: sectionLines };

    const createdAt = this.now();
    const detail = input.detail ?? "raw";
    const files: OffloadedFile[] = [];
    const count = sectionLines.reduce((n, l) => n + l.length, 0);
    try {
      await ensureOutputDir(this.fs, this.config.outputDir);
      const described: DescribedSection[] = [];
      for (const [i, section] of input.sections.entries()) {
        const lines = sectionLines[i] as string[];
        const header = {
          type: "lro_header" as const,
          operation: input.operation,
          query: input.query ?? null,
          count: lines.length,
          schema_version: "generic",
          timestamp: new Date(createdAt).toISOString(),
          estimated_tokens: (estimates[i] as LinesEstimate).tokens,
          detail,
          section: section.key,
        };
        const written = await writeJsonlFile({
          fs: this.fs,
          dir: this.config.outputDir,
          operation: input.operation,
          id: this.nextUlid(createdAt),
          headerLine: JSON.stringify(header),
          lines,
          ...(this.onTempOpened ? { onTempOpened: this.onTempOpened } : {}),
        });
        files.push({
          path: written.path,
          header,
          ttlSeconds: this.config.ttlSeconds,
          createdAt,
          bytes: written.bytes,
        });
        described.push({
          key: section.key,
          filePath: written.path,
          count: lines.length,
          lineSchema: inferLineSchema(section.items),
          description: section.description,
          summary: section.summary,
          recipes: section.recipes,
        });
      }
      const response = buildGenericDescriptor(described, input.inline);
      for (const f of files) this.emitCreated(f);
      return { kind: "offloaded", estimatedTokens: tokens, response, files };
    } catch (err) {
      // All or nothing: a descriptor must never point at some files but not others.
      for (const f of files) await this.fs.unlink(f.path).catch(() => {});
      const error = asLroError(err);
      this.emitFailed(input.operation, error, count, tokens);
      const warning0 = truncationWarning(
        failureCode(error),
        count,
        count,
        this.config.thresholdTokens,
      );
      let budget = this.config.thresholdTokens - reserveFor(warning0);
      const sections = input.sections.map((s, i) => {
        const lines = sectionLines[i] as string[];
        const fit = linesThatFit(lines, estimates[i] as LinesEstimate, budget);
        budget -= fit.tokens;
        return { key: s.key, items: s.items.slice(0, fit.count), total: lines.length };
      });
      const keptTotal = sections.reduce((n, s) => n + s.items.length, 0);
      return {
        kind: "truncated",
        estimatedTokens: tokens,
        sections,
        warning: truncationWarning(
          failureCode(error),
          keptTotal,
          count,
          this.config.thresholdTokens,
        ),
        error,
      };
    }
  }

  /** Start the custodial sweeper on this offloader's directory, TTL, clock and events. */
  startSweeper(options: Partial<SweeperOptions> = {}): Sweeper {
    return startSweeper({
      dir: this.config.outputDir,
      ttlSeconds: this.config.ttlSeconds,
      now: this.now,
      events: this.events,
      fs: this.fs,
      ...options,
    });
  }

  private emitCreated(file: OffloadedFile): void {
    this.events.emit({
      type: "OffloadCreated",
      time: new Date(this.now()).toISOString(),
      path: file.path,
      operation: file.header.operation,
      count: file.header.count,
      bytes: file.bytes,
      estimated_tokens: file.header.estimated_tokens,
      detail: file.header.detail,
    });
  }

  private emitFailed(operation: string, error: LroError, count: number, tokens: number): void {
    this.events.emit({
      type: "OffloadWriteFailed",
      time: new Date(this.now()).toISOString(),
      operation,
      path: error instanceof WriteFailedError ? error.path : null,
      code: failureCode(error),
      error: error.message,
      count,
      estimated_tokens: tokens,
    });
  }
}
