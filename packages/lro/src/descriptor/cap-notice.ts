/**
 * The words of a capped offload: a result set with more records than
 * `prompt.offload.max_records` is written up to the cap, and its descriptor
 * states both counts plainly and how to narrow the request. A set its producer
 * already cut for a bound of its own (a server's bound on a whole set sent
 * inline) names that bound instead: this side's `max_records` did not cut it.
 */
import type { CapNotice } from "../types.js";

/** Counts of a capped result set. */
interface CapCounts {
  /** Records in the whole result set. */
  total: number;
  /** Records written to the file (the first ones, in the result's order). */
  inFile: number;
  maxRecords: number;
  /**
   * Why the producer's set holds fewer records than match, in its own words
   * (naming its bound), when that and not `maxRecords` left records out.
   */
  cause?: string | undefined;
}

/** What left records out of the file. */
function causeOf(c: CapCounts): string {
  return c.cause !== undefined
    ? `the set arrived cut: ${c.cause}`
    : `prompt.offload.max_records = ${c.maxRecords}`;
}

/** The `capped` field of a descriptor. */
function capNotice(c: CapCounts): CapNotice {
  return {
    total_matches: c.total,
    records_in_file: c.inFile,
    max_records: c.maxRecords,
    note:
      `The file holds the first ${c.inFile} of ${c.total} matching records (in the result's order); ` +
      `${c.total - c.inFile} more match but are not in it (${causeOf(c)}).`,
  };
}

/** The paragraph guidance gains when capped: what is missing and how to narrow. */
function capGuidance(c: CapCounts): string {
  const head = [
    `CAPPED: ${c.total} records match, the file holds the first ${c.inFile}.`,
    "Counts and aggregates over the file cover only those. To cover every match, narrow the",
  ];
  if (c.cause !== undefined) {
    return [
      ...head,
      "request (more filters, more specific query words, a lower detail level) until the",
      `set arrives whole; it arrived cut (${c.cause}).`,
    ].join("\n");
  }
  return [
    ...head,
    "request (more filters, or more specific query words) until it matches at most",
    "max_records, or ask for a larger prompt.offload.max_records.",
  ].join("\n");
}

/**
 * `response` (any profile's descriptor) with the cap stated in a `capped` field
 * and at the top of its guidance, when it has one.
 */
export function withCapNotice<D>(response: D, c: CapCounts): D {
  const guidance = (response as { guidance?: unknown }).guidance;
  return {
    ...response,
    ...(typeof guidance === "string" ? { guidance: `${capGuidance(c)}\n\n${guidance}` } : {}),
    capped: capNotice(c),
  };
}
