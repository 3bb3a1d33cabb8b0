/**
 * `upsertMany` on PostgreSQL: a batch of new ids is streamed with COPY
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
import { type PreparedRow, toRow } from "../sqlite/row.js";
import type { UpsertReport } from "../store.js";
import { pgStoreError } from "./pg-errors.js";
import { rowValues } from "./pg-rows.js";

/** Written columns of `memories`, in COPY order (after the staging `ord`). */
export const WRITE_COLUMNS = [
  "id",
  "memory_type",
  "status",
  "namespace",
  "created_ms",
  "modified_ms",
  "confidence",
  "created",
  "modified",
  "title",
  "tags",
  "tags_json",
  "content",
  "doc",
] as const;

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

/** COPY text format: backslash escapes for the characters that delimit fields and rows. */
function field(value: string | number | null): string {
  if (value === null) return "\\N";
  if (typeof value === "number") return String(value);
  return value.replace(/[\\\n\r\t]/g, (c) =>
    c === "\\" ? "\\\\" : c === "\n" ? "\\n" : c === "\r" ? "\\r" : "\\t",
  );
}

/** A text[] literal: every element quoted, `"` and `\` escaped. */
function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(",")}}`;
}

/** The COPY line of one prepared row, led by its batch position `ord` when given. */
export function copyLine(prepared: PreparedRow, ord?: number): string {
  const values = rowValues(prepared, arrayLiteral);
  return `${[...(ord === undefined ? [] : [ord]), ...values].map(field).join("\t")}\n`;
}

/** Prepare every memory, failing the whole batch on the first bad one (nothing stored). */
function prepareAll(memories: readonly Memory[]): { rows: PreparedRow[]; duplicates: number } {
  const byId = new Map<string, number>();
  const rows: PreparedRow[] = [];
  let duplicates = 0;
  memories.forEach((memory, index) => {
    let prepared: PreparedRow;
    try {
      prepared = toRow(memory);
    } catch (err) {
      const e = pgStoreError(err, `memory #${index}`);
      throw new StoreError(e.code, `upsert failed, nothing stored: ${e.message}`, { cause: err });
    }
    const seen = byId.get(prepared.row.id);
    if (seen === undefined) {
      byId.set(prepared.row.id, rows.length);
      rows.push(prepared);
    } else {
      // A later copy of an id in the same batch wins, as sequential upserts would.
      rows[seen] = prepared;
      duplicates++;
    }
  });
  return { rows, duplicates };
}

/** Stream `lines` into `COPY ... FROM STDIN` on `client`, in chunks of about 64 KiB. */
async function copyIn(client: PoolClient, sql: string, lines: readonly string[]): Promise<void> {
  await pipeline(
    (async function* () {
      let chunk = "";
      for (const line of lines) {
        chunk += line;
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
 * pass over the data. Undefined, with nothing written, when an id exists (or
 * appears meanwhile: another writer's insert then fails ours on the unique id).
 */
async function copyNew(
  client: PoolClient,
  rows: readonly PreparedRow[],
): Promise<number | undefined> {
  const ids = rows.map((r) => r.row.id);
  const existing = await client.query("SELECT 1 FROM memories WHERE id = ANY($1::text[]) LIMIT 1", [
    ids,
  ]);
  if ((existing.rowCount ?? 0) > 0) return undefined;
  await client.query("SAVEPOINT atlatl_copy");
  try {
    await copyIn(
      client,
      `COPY memories (${list}) FROM STDIN`,
      rows.map((r) => copyLine(r)),
    );
  } catch (err) {
    if ((err as { code?: string }).code !== "23505") throw err;
    await client.query("ROLLBACK TO SAVEPOINT atlatl_copy");
    return undefined;
  }
  return rows.length;
}

/** Merge through the staging table: inserts and updates, unchanged rows untouched. */
async function stageAndMerge(client: PoolClient, rows: readonly PreparedRow[]): Promise<number> {
  await client.query(STAGE);
  await copyIn(
    client,
    `COPY atlatl_stage (ord, ${list}) FROM STDIN`,
    rows.map((r, i) => copyLine(r, i)),
  );
  const merged = await client.query<{ inserted: boolean }>(MERGE);
  return merged.rows.filter((r) => r.inserted).length;
}

/** Upsert `memories` in one transaction on `client` (see the module comment). */
export async function copyUpsert(
  client: PoolClient,
  memories: readonly Memory[],
): Promise<UpsertReport> {
  const { rows, duplicates } = prepareAll(memories);
  await client.query("BEGIN");
  try {
    const inserted = (await copyNew(client, rows)) ?? (await stageAndMerge(client, rows));
    await client.query("COMMIT");
    return { inserted, updated: rows.length - inserted + duplicates };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    const e = pgStoreError(err, "upsertMany");
    throw new StoreError(e.code, `upsert failed, nothing stored: ${e.message}`, { cause: err });
  }
}
