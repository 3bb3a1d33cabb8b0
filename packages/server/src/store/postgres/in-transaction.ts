/**
 * One transaction on a connection of `pool`: `fn` runs between BEGIN and
 * COMMIT, and a throw rolls it back and is rethrown. The connection goes back
 * to the pool either way, except one that could not even roll back, which is
 * dropped rather than handed to the next caller mid-transaction.
 */
import type pg from "pg";

export async function inTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    client.release(broken);
  }
}
