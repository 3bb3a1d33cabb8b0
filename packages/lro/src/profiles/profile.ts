/**
 * The profile seam: everything that differs between kinds of result (how a
 * record becomes a line, what the summary counts, the line schema, the recipes
 * and the guidance) behind one interface. The engine core (estimate, decide,
 * write, sweep, extract, events) only calls these; it knows no record field.
 */
import type { LroError } from "../errors.js";
import type { FastPath } from "../extract/fast-primitives.js";
import type { RecipeSpec } from "../recipes/recipe-spec.js";
import type { OffloadHeader } from "../types.js";

/** Gathers what a descriptor needs, record by record, during the one pass over them. */
export interface ProfileAccumulator<S> {
  add(record: object): void;
  result(): S;
}

/** What {@link Profile.describe} is given once the file is written. */
export interface DescribeInput<S> {
  filePath: string;
  operation: string;
  query: string | null;
  /** The normalized detail level (as written into the header). */
  detail: string;
  /** Records in the file. */
  count: number;
  estimatedTokens: number;
  /** What the accumulator gathered over every record. */
  stats: S;
  /** Scores aligned with the records, when the operation has them. */
  scores?: readonly number[] | undefined;
  /** The extraction tool guidance points to instead of the shell, or false. */
  nativeExtraction: string | false;
}

/** The records of a file, parsed, for profiles whose recipes depend on the data. */
export type RecordsOf = () => readonly object[];

/**
 * One kind of result. `D` is the descriptor type, `S` the statistics the
 * accumulator gathers.
 */
export interface Profile<D = unknown, S = unknown> {
  /** Written into non-memory headers as `profile`, so extraction knows the recipes. */
  readonly name: string;
  /** `schema_version` of the header line. */
  readonly schemaVersion: string;
  /** The detail level to use for a producer's request (unknown ones get a default). */
  normalizeDetail(detail: string | undefined): string;
  /** The record as its line's value at `detail` (identity when there is no projection). */
  project(record: object, detail: string): object;
  /** A fresh accumulator for one result. */
  accumulate(detail: string): ProfileAccumulator<S>;
  /** Header fields after the specification's eight (e.g. `{profile}`); none for memory. */
  headerFields(): Readonly<Record<string, unknown>>;
  /** The descriptor that replaces the result. */
  describe(input: DescribeInput<S>): D;
  /**
   * Recipe `number` for a file of this profile (`records()` parses its lines
   * when the recipes depend on the data), or an `LroError` saying why not.
   * Absent: the profile has no numbered recipes (jq queries only).
   */
  recipe?(header: OffloadHeader, number: number, records: RecordsOf): RecipeSpec | LroError;
  /** TypeScript implementations of some recipe filters, checked to print exactly what jq prints. */
  fastPaths?: ReadonlyMap<string, FastPath>;
}

/** A profile of any descriptor type (for registries and headers). */
export type AnyProfile = Profile<unknown, unknown>;
