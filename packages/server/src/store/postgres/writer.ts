/**
 * `insertMany` and `upsertMany` on PostgreSQL: a batch of new ids is streamed with COPY
 * straight into `memories`; a batch with known ids goes through a temporary
 * staging table merged with one INSERT ... ON CONFLICT; either in one
 * transaction (a batch is stored whole or not at all; a killed process loses
 * only the batch in flight, and a re-run updates instead of duplicating).
 * COPY moves a batch in one round trip, and the stored generated tsvector is
 * computed by the server as the rows are merged.
 */
import { pipeline } from "node:stream/promises";
import type { PoolClient } from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { Memory } from "../../model/memory.js";
import { StoreError } from "../errors.js";
import { type PreparedRow, toRow } from "../memory-row.js";
import type { UpsertReport } from "../store.js";
import { pgStoreError } from "./postgres-errors.js";
import { rowValues, WRITE_COLUMNS } from "./rows.js";

const STAGE = `CREATE TEMP TABLE IF NOT EXISTS atlatl_stage (
  ord integer, id text, memory_type text, status text, namespace text, created_ms bigint,
  modified_ms bigint, confidence double precision, created text, modified text, title text,
  tags text[], tags_json text, content text, doc text
) ON COMMIT DELETE ROWS`;

const list = WRITE_COLUMNS.join(", ");
const updates = WRITE_COLUMNS.filter((c) => c !== "id")
  .map((c) => `${c} = excluded.${c}`)
  .join(", ");
const changed = WRITE_COLUMNS.filter((c) => c !== "id");

/** Unchanged rows are not rewritten: re-importing the same memories stays cheap. */
const MERGE = `INSERT INTO memories (${list})
  SELECT ${list} FROM atlatl_stage ORDER BY ord
  ON CONFLICT (id) DO UPDATE SET ${updates}
  WHERE (${changed.map((c) => `memories.${c}`).join(", ")}) IS DISTINCT FROM (${changed.map((c) => `excluded.${c}`).join(", ")})
  RETURNING (xmax = 0) AS inserted`;

/** Characters COPY's text format escapes (they delimit fields and rows). */
const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;

/** COPY text format: backslash escapes for the characters that delimit fields and rows. */
function field(value: string | number | null): string {
  if (value === null) return "\\N";
  if (typeof value === "number") return String(value);
  // Most fields have nothing to escape: test first, replace (and allocate) only when needed.
  if (!SPECIAL.test(value)) return value;
  return value.replace(SPECIALS, (c) =>
    c === "\\" ? "\\\\" : c === "\n" ? "\\n" : c === "\r" ? "\\r" : "\\t",
  );
}

/** A text[] literal: every element quoted, `"` and `\` escaped. */
function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(",")}}`;
}

/** The COPY line of one prepared row, led by its batch position `ord` when given. */
function copyLine(prepared: PreparedRow, ord?: number): string {
  let line = ord === undefined ? "" : `${ord}\t`;
  const values = rowValues(prepared, arrayLiteral);
  for (let i = 0; i < values.length; i++) {
    line += i === 0 ? field(values[i] ?? null) : `\t${field(values[i] ?? null)}`;
  }
  return `${line}\n`;
}

/** A batch refused before anything was written (a memory the schema cannot hold). */
class BatchRefused extends StoreError {}

/** The row of `memory`, the `index`-th of its batch; a bad one refuses the whole batch. */
function prepare(memory: Memory, index: number): PreparedRow {
  try {
    return toRow(memory);
  } catch (err) {
    const e = pgStoreError(err, `memory #${index}`);
    throw new BatchRefused(e.code, `upsert failed, nothing stored: ${e.message}`, { cause: err });
  }
}

/**
 * The batch positions to write: one per id, in order of first appearance, each
 * holding the id's last copy (a later copy wins, as sequential upserts would).
 */
function uniqueOrder(memories: readonly Memory[]): { order: number[]; duplicates: number } {
  const slot = new Map<unknown, number>();
  const order: number[] = [];
  memories.forEach((memory, index) => {
    const id = memory?.id;
    const seen = slot.get(id);
    if (seen === undefined) {
      slot.set(id, order.length);
      order.push(index);
    } else {
      // The replaced copy is still checked: a batch with a bad memory stores nothing.
      const replaced = order[seen] as number;
      prepare(memories[replaced] as Memory, replaced);
      order[seen] = index;
    }
  });
  return { order, duplicates: memories.length - order.length };
}

/**
 * Stream the COPY lines of `memories[order]` into `COPY ... FROM STDIN` on
 * `client`, in chunks of about 64 KiB. Rows are prepared as the stream is
 * read, so the server parses and indexes one chunk (to_tsvector is most of an
 * import's time) while this process formats the next, instead of idling until
 * the whole batch is formatted. A bad memory aborts the COPY (CopyFail) and,
 * with it, the transaction: nothing of the batch is stored.
 */
async function copyIn(
  client: PoolClient,
  sql: string,
  memories: readonly Memory[],
  order: readonly number[],
  withOrd: boolean,
): Promise<void> {
  await pipeline(
    (function* () {
      let chunk = "";
      for (let k = 0; k < order.length; k++) {
        const index = order[k] as number;
        chunk += copyLine(prepare(memories[index] as Memory, index), withOrd ? k : undefined);
        if (chunk.length >= 65536) {
          yield chunk;
          chunk = "";
        }
      }
      if (chunk) yield chunk;
    })(),
    client.query(copyFrom(sql)),
  );
}

/**
 * A batch of new ids only (a fresh import): COPY straight into `memories`, one
 * pass over the data. Optimistic: an id that exists already fails the COPY at
 * its row (unique violation), which is rolled back to the savepoint set with
 * BEGIN, and the caller merges the batch instead (undefined). Asking first
 * cost an index probe per id on every batch (~6 ms per 2,000, 4% of an
 * import), where a re-import of known ids fails at its first row and wastes
 * nearly nothing.
 */
async function copyNew(
  client: PoolClient,
  memories: readonly Memory[],
  order: readonly number[],
): Promise<number | undefined> {
  try {
    await copyIn(client, `COPY memories (${list}) FROM STDIN`, memories, order, false);
  } catch (err) {
    if ((err as { code?: string }).code !== "23505") throw err;
    await client.query("ROLLBACK TO SAVEPOINT atlatl_copy");
    return undefined;
  }
  return order.length;
}

/** Merge through the staging table: inserts and updates, unchanged rows untouched. */
async function stageAndMerge(
  client: PoolClient,
  memories: readonly Memory[],
  order: readonly number[],
): Promise<number> {
  await client.query(STAGE);
  await copyIn(client, `COPY atlatl_stage (ord, ${list}) FROM STDIN`, memories, order, true);
  const merged = await client.query<{ inserted: boolean }>(MERGE);
  return merged.rows.filter((r) => r.inserted).length;
}

/**
 * Insert `memories` (new ids) in one transaction on `client`: one COPY into
 * `memories`, the path of a fresh import. An id that exists or repeats fails
 * the COPY (unique violation) and so the whole batch, with `DUPLICATE_ID`.
 */
export async function copyInsert(client: PoolClient, memories: readonly Memory[]): Promise<void> {
  await client.query("BEGIN");
  try {
    const order = memories.map((_, index) => index);
    await copyIn(client, `COPY memories (${list}) FROM STDIN`, memories, order, false);
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    if (err instanceof BatchRefused) throw err;
    const e = pgStoreError(err, "insertMany");
    throw new StoreError(e.code, `insert failed, nothing stored: ${e.message}`, { cause: err });
  }
}

/** Upsert `memories` in one transaction on `client` (see the module comment). */
export async function copyUpsert(
  client: PoolClient,
  memories: readonly Memory[],
): Promise<UpsertReport> {
  const { order, duplicates } = uniqueOrder(memories);
  // One round trip: the savepoint copyNew rolls back to when an id is known.
  await client.query("BEGIN; SAVEPOINT atlatl_copy");
  try {
    const inserted =
      (await copyNew(client, memories, order)) ?? (await stageAndMerge(client, memories, order));
    await client.query("COMMIT");
    return { inserted, updated: order.length - inserted + duplicates };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    if (err instanceof BatchRefused) throw err;
    const e = pgStoreError(err, "upsertMany");
    throw new StoreError(e.code, `upsert failed, nothing stored: ${e.message}`, { cause: err });
  }
}
