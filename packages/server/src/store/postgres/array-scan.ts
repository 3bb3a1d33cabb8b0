/**
 * The exact nearest-vector scan of the `real[]` engine (PostgreSQL without
 * pgvector). PostgreSQL has no built-in dot product; summing `unnest` pairs in
 * SQL took a median 460 ms at 5,000 vectors of 384 dimensions on the loaded
 * 2-core VM, reading them as `array_send`'s bytes (PostgreSQL's binary array
 * format: no float text to parse, and node-pg decodes `bytea` natively) and
 * multiplying here 340 ms. Either is linear in memories x dimensions; pgvector
 * is the answer for large stores. (node-pg's `binary: true` result mode
 * mangles array bytes above 0x7f, hence `array_send`.) Filters and the
 * horizon apply in SQL; vectors come in pages by sequence number, so memory
 * holds one page and the best `limit` hits at a time.
 */
import type pg from "pg";
import { whereClause } from "../sql.js";
import type { NearestQuery, VectorHit } from "../vector-index.js";
import { filterConditions, Params } from "./filter-sql.js";

/** Vectors read per statement. */
const SCAN_PAGE = 2000;

/** A one-dimensional float4 array in PostgreSQL's binary array format. */
function float4Array(value: Buffer): Float32Array {
  const dims = value.readInt32BE(0);
  const length = dims === 0 ? 0 : value.readInt32BE(12);
  const out = new Float32Array(length);
  let at = 12 + dims * 8;
  for (let i = 0; i < length; i++) {
    out[i] = value.readFloatBE(at + 4); // each element: its byte length (4), then the float
    at += 8;
  }
  return out;
}

/** The dot product, which is the cosine similarity of unit vectors. */
function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/** See the module comment. */
export async function arrayScan(pool: pg.Pool, query: NearestQuery): Promise<VectorHit[]> {
  const best: VectorHit[] = [];
  let after = 0;
  for (;;) {
    const p = new Params();
    const where = filterConditions(query.filter, p);
    if (query.horizon !== undefined) where.push(`m.seq <= ${p.add(query.horizon)}`);
    where.push(`m.seq > ${p.add(after)}`);
    const rows = (
      await pool.query(
        `SELECT m.seq, m.id, array_send(v.vector) AS vector FROM memory_vectors v JOIN memories m ON m.seq = v.seq${whereClause(where)} ORDER BY m.seq LIMIT ${p.add(SCAN_PAGE)}`,
        p.values,
      )
    ).rows as { seq: number; id: string; vector: Buffer }[];
    for (const r of rows) {
      const similarity = dot(float4Array(r.vector), query.vector);
      if (similarity < query.minSimilarity) continue;
      if (
        best.length === query.limit &&
        similarity <= (best[best.length - 1] as VectorHit).similarity
      )
        continue;
      // Insertion keeps best sorted (similarity desc; rows come in seq order, so ties stay in it).
      let i = best.length;
      while (i > 0 && (best[i - 1] as VectorHit).similarity < similarity) i--;
      best.splice(i, 0, { id: r.id, seq: r.seq, similarity });
      if (best.length > query.limit) best.pop();
    }
    if (rows.length < SCAN_PAGE) return best;
    after = (rows[rows.length - 1] as { seq: number }).seq;
  }
}
