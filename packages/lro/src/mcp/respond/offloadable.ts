/** What a tool handler hands to the response boundary (`respond.ts`) besides a ready `CallToolResult`. */

import type { RecordSource } from "../../offload/types.js";
import type { AnyProfile } from "../../profiles/profile.js";
import { type BuiltinProfileName, profileByName } from "../../profiles/registry.js";
import type { AnyCallToolResult } from "../../protocol/mcp-types.js";
import type { DetailLevel } from "../../types.js";

/** What a wrapped handler returns instead of a `CallToolResult` to have LRO applied. */
export interface OffloadableRecords {
  /** `recall`, `search`, `inject`, `list`, or a producer's own. */
  operation: string;
  query?: string | null;
  /** Detail level of memory records (other profiles ignore it). */
  detail?: DetailLevel | undefined;
  /**
   * What the records are: `"memory"` (default: MIF memories, the specification's
   * descriptor), `"records"` (any objects: inferred schema, recipes on their
   * fields), `"sections"`, or a {@link Profile} object of your own.
   */
  profile?: BuiltinProfileName | AnyProfile | undefined;
  /** The complete (for `inject`: pre-budget) result set. */
  records: readonly object[];
  /** Hit scores aligned with `records`, when the operation has them. */
  scores?: readonly number[] | undefined;
  /**
   * What to return when the result stays inline: a string is returned as the
   * text (e.g. `inject_context`'s formatted Markdown), any other value as JSON.
   * Default: `{count, records, next_cursor?}` built from the same serialized lines.
   */
  inline?: unknown;
  /** Pagination cursor for the inline case only (offloaded results carry none). */
  nextCursor?: string | null;
  /**
   * The records are the page a cursor asked for: they continue a walk whose
   * initial request was judged, and go back inline as they are, with their
   * `nextCursor`, never judged or offloaded (specification, "Relationship to
   * Pagination": threshold evaluation occurs on the initial request only).
   */
  continuation?: boolean;
  /**
   * The whole result set, judged instead of `records` (which are then unused:
   * pass `[]`). LRO precedes pagination: above the threshold (or past
   * `maxRecords`) every match goes to the file and no cursor exists; below it
   * the inline page comes from `whole.page()`, with the number of matches.
   */
  whole?: WholeResultSet;
}

/** Every match of a paged read, and how to get its first inline page. */
export interface WholeResultSet {
  /** Every match in the tool's order (rank or sort order), each with its score if any. */
  source: RecordSource;
  /** The inline page; asked for only when the whole set stays inline (or LRO is off). */
  page(): Promise<InlinePage>;
}

/** An inline page of a {@link WholeResultSet}. */
export type InlinePage = Pick<
  OffloadableRecords,
  "records" | "scores" | "inline" | "nextCursor"
> & {
  /**
   * The page's records are the source's first `records.length`, in order and
   * at the same detail: the boundary reuses the lines it measured for them
   * instead of serializing the records again.
   */
  leadingOfSource?: boolean;
};

/** Either a finished tool result or records to decide on. */
export type OffloadHandlerResult = AnyCallToolResult | OffloadableRecords;

/** True when a handler's result asks for LRO (has `records`, is not a `CallToolResult`). */
export function isOffloadableRecords(value: unknown): value is OffloadableRecords {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return Array.isArray(v.records) && !Array.isArray(v.content) && typeof v.operation === "string";
}

/** The profile a result asks for: a profile object, or a built-in one by name. */
export function resolveProfile(
  profile: BuiltinProfileName | AnyProfile | undefined,
): AnyProfile | undefined {
  if (profile === undefined || typeof profile === "object") return profile;
  const found = profileByName(profile);
  if (!found) throw new TypeError(`unknown LRO profile ${JSON.stringify(profile)}`);
  return found;
}
