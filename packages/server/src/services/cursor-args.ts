/** Turning cursor strings into checked positions for the services. */
import { type CursorKind, decodeCursor } from "../model/cursor.js";
import type { RankPosition } from "../store/store.js";
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

/**
 * The cursor fields of a ranked page's end: the last hit's position and, as
 * fallback anchors should it be deleted, the sequence numbers of the two hits
 * before it.
 */
export function rankPositionFields(page: readonly { position: RankPosition }[]): {
  v: number;
  q: number;
  p: number[];
  e?: number;
} {
  const last = page[page.length - 1];
  if (!last) throw new Error("rankPositionFields: empty page");
  const previous = page
    .slice(Math.max(0, page.length - 3), -1)
    .map((h) => h.position.seq)
    .reverse();
  const { epoch } = last.position;
  return {
    v: last.position.value,
    q: last.position.seq,
    p: previous,
    ...(epoch === undefined ? {} : { e: epoch }),
  };
}

/** The ranked position stored by {@link rankPositionFields}, or `INVALID_ARGUMENT`. */
export function rankPositionOf(position: Record<string, unknown>): RankPosition {
  const previous = position.p ?? [];
  if (!Array.isArray(previous) || previous.some((v) => typeof v !== "number")) {
    throw invalidArgument(
      "cursor",
      "cursor is damaged. Call again without a cursor to start from the first page.",
    );
  }
  return {
    value: member(position, "v", "number"),
    seq: member(position, "q", "number"),
    previous: previous as number[],
    epoch: position.e === undefined ? undefined : member(position, "e", "number"),
  };
}
