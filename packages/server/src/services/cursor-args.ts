/** Turning cursor strings into checked positions for the services. */
import { type CursorKind, decodeCursor } from "../model/cursor.js";
import { invalidArgument } from "./errors.js";

/** Decode `cursor` or throw `INVALID_ARGUMENT` (field `cursor`). */
export function openCursor(
  cursor: string,
  kind: CursorKind,
  print: string,
): Record<string, unknown> {
  const decoded = decodeCursor(cursor, kind, print);
  if ("message" in decoded) throw invalidArgument("cursor", decoded.message);
  return decoded.position;
}

/** A position member of the expected type, or `INVALID_ARGUMENT`. */
export function member<T extends "string" | "number">(
  position: Record<string, unknown>,
  key: string,
  type: T,
): T extends "string" ? string : number {
  const value = position[key];
  if (typeof value !== type || (type === "number" && !Number.isFinite(value))) {
    throw invalidArgument(
      "cursor",
      "cursor is damaged. Call again without a cursor to start from the first page.",
    );
  }
  return value as T extends "string" ? string : number;
}

/** Ids of the hits before the last one of a page, nearest first (fallback anchors). */
export function previousIds(ids: readonly string[], count = 2): string[] {
  return ids.slice(Math.max(0, ids.length - 1 - count), -1).reverse();
}

/** The optional list of fallback anchor ids of a position. */
export function previousMember(position: Record<string, unknown>): string[] {
  const value = position.p;
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw invalidArgument(
      "cursor",
      "cursor is damaged. Call again without a cursor to start from the first page.",
    );
  }
  return value as string[];
}
