/** Inputs and outcomes of the `Offloader`'s two profiles. */
import type { LroError } from "../errors.js";
import type { CallEvents } from "../events/events.js";
import type { EncodedLines } from "../materialize/encoded-lines.js";
import type { Profile } from "../profiles/profile.js";
import type {
  DetailLevel,
  GenericOffloadResponse,
  JsonSchema,
  OffloadedFile,
  OffloadResponse,
} from "../types.js";

/** One record of a streamed result set, with its hit score when the operation has one. */
export interface SourceRecord {
  record: object;
  score?: number | undefined;
}

/**
 * A result set read one record at a time, in the tool's order (e.g. straight
 * from a store's cursor), so that a whole set never has to sit in memory.
 */
export type RecordSource = Iterable<SourceRecord> | AsyncIterable<SourceRecord>;

/**
 * A result set to consider for offloading (memory records unless `profile` says
 * otherwise): `records` (with `scores`) or `source`.
 */
export interface OffloadRecordsInput<D = OffloadResponse> extends CallEvents {
  /** `recall`, `search`, `inject`, `list` (or a producer's own name). */
  operation: string;
  query?: string | null;
  /** Detail level (memory: light, medium, full; other profiles normalize or ignore it). */
  detail?: DetailLevel | (string & {}) | undefined;
  /** What the records are and how they are described (default: the memory profile). */
  profile?: Profile<D, unknown>;
  /** The records; projected to `detail` by the profile unless `project` is false. */
  records?: readonly object[] | undefined;
  /** Scores of the hits, aligned with `records`, when the operation has them. */
  scores?: readonly number[] | undefined;
  /**
   * The result set as a stream (instead of `records`): read once, each record
   * serialized once. At most `config.maxRecords` are kept for the file; the
   * rest are only counted (see `total` of the outcomes).
   */
  source?: RecordSource | undefined;
  /**
   * Matches in the set when the producer already capped `records` (a server's
   * negotiated whole set): a larger number than the records makes the set
   * capped here too, its descriptor saying how many match.
   */
  totalMatches?: number | undefined;
  /**
   * Why the producer's records stop short of `totalMatches` (its own bound, in
   * its words): the cap notice says so instead of blaming `max_records`
   * when this side's `max_records` did not cut the set.
   */
  capCause?: string | undefined;
  /** Project records to `detail` (default true; idempotent on projected records). */
  project?: boolean;
  /** Offload regardless of `enabled` and the threshold (the caller has decided). */
  force?: boolean;
  /** A threshold of this result's own (e.g. a per-tool policy), instead of the config's. */
  thresholdTokens?: number;
}

/** The result stays inline; `lines` are the serialized records (reuse them). */
export interface InlineOutcome {
  kind: "inline";
  estimatedTokens: number;
  lines: string[];
  /** Records in the result set (= `lines.length`). */
  total?: number;
}

/** The result was written; `response` (the profile's descriptor) replaces it. */
export interface OffloadedOutcome<D = OffloadResponse> {
  kind: "offloaded";
  estimatedTokens: number;
  response: D;
  file: OffloadedFile;
  /** Records in the result set; more than the file's `header.count` when capped by `maxRecords`. */
  total?: number;
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

/** Outcome of `Offloader.offloadRecords`. */
export type OffloadRecordsResult<D = OffloadResponse> =
  | InlineOutcome
  | OffloadedOutcome<D>
  | TruncatedOutcome;

/** One section of a generic result: its items (or ready lines) become the file's lines. */
export interface OffloadSection {
  /** Key in the descriptor's maps (e.g. `results`). */
  key: string;
  /** The values, one per line. */
  items?: readonly unknown[];
  /** Or the lines already serialized as JSON (one value each); `items` then only feed the schema. */
  lines?: readonly string[];
  /**
   * Or the lines already encoded as UTF-8 (e.g. `encodeTextLines`), written as
   * they are: for large results, with `estimatedTokens` measured by the caller.
   */
  encoded?: EncodedLines;
  /**
   * When the lines are records of another profile (e.g. memory records an
   * extraction selected): the header names that profile, so its recipes apply.
   */
  lineProfile?: Profile<unknown, unknown>;
  /** The lines' JSON Schema when the caller knows it (default: inferred from the items or lines). */
  lineSchema?: JsonSchema;
  /** Schema description (default: header-then-data note). */
  description?: string;
  /** Summary (default `{count}`). */
  summary?: Record<string, unknown>;
  /** Custom recipes with `{key_file}` placeholders (default: list, count, first 10). */
  recipes?: Record<string, string>;
}

/** A generic result set to consider for offloading. */
export interface OffloadSectionsInput extends CallEvents {
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
  /** Estimated tokens of all sections, when the caller measured them (skips estimation). */
  estimatedTokens?: number;
}

/** Outcome of `Offloader.offloadSections`. */
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
