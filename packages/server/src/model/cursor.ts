/**
 * Opaque pagination cursors: base64url of a small JSON object carrying a format
 * version, the operation, a fingerprint of the arguments that shaped the result
 * (query, filter, sort) and the position after the last row returned. A cursor
 * presented with other arguments is refused rather than silently paging a
 * different result.
 */
import { createHash } from "node:crypto";

/** Bumped when the payload layout changes; older cursors are refused with a clear message. */
const CURSOR_VERSION = 1;

/** Operations that issue cursors. */
export type CursorKind = "list" | "recall" | "search";

interface Envelope {
  v: number;
  k: CursorKind;
  f: string;
  p: Record<string, unknown>;
}

/** Why a cursor was refused. */
export interface CursorProblem {
  field: "cursor";
  message: string;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * A short stable digest of `args` (key order and undefined members do not
 * matter). Callers normalize first (e.g. sorted tags, default status) so that
 * equivalent arguments give the same fingerprint.
 */
export function fingerprint(args: unknown): string {
  return createHash("sha256").update(canonical(args)).digest("base64url").slice(0, 16);
}

/** Encode a position into an opaque cursor string. */
export function encodeCursor(
  kind: CursorKind,
  print: string,
  position: Record<string, unknown>,
): string {
  const envelope: Envelope = { v: CURSOR_VERSION, k: kind, f: print, p: position };
  return Buffer.from(JSON.stringify(envelope), "utf8").toString("base64url");
}

/**
 * Decode `cursor` for `kind` and check it was issued for arguments with
 * fingerprint `print`. Returns the position, or a problem to report.
 */
export function decodeCursor(
  cursor: string,
  kind: CursorKind,
  print: string,
): { position: Record<string, unknown> } | CursorProblem {
  const restart = "Call again without a cursor to start from the first page.";
  let envelope: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error("not base64url");
    envelope = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return { field: "cursor", message: `cursor is not one this server issued. ${restart}` };
  }
  const e = envelope as Partial<Envelope> | null;
  if (!e || typeof e !== "object" || typeof e.p !== "object" || e.p === null) {
    return { field: "cursor", message: `cursor is not one this server issued. ${restart}` };
  }
  if (e.v !== CURSOR_VERSION) {
    return { field: "cursor", message: `cursor comes from another server version. ${restart}` };
  }
  if (e.k !== kind) {
    return {
      field: "cursor",
      message: `cursor was issued by ${String(e.k)}, not ${kind}. ${restart}`,
    };
  }
  if (e.f !== print) {
    return {
      field: "cursor",
      message: `cursor was issued for a different query, filter or sort; pass the same arguments as the first page. ${restart}`,
    };
  }
  return { position: e.p };
}
