/** Opening the PostgreSQL offload store on the instance's pool: its tables created when missing. */
import type pg from "pg";
import { ensureOffloadSchema } from "./offload-schema.js";
import {
  PostgresOffloadStore,
  type PostgresOffloadStoreOptions,
} from "./postgres-offload-store.js";

/** Options of {@link openPostgresOffloadStore}. */
type OpenPostgresOffloadStoreOptions = PostgresOffloadStoreOptions & {
  /** The instance's pool (`openPostgresPool`); its opener ends it. */
  pool: pg.Pool;
};

/** Create the store's tables when missing; a `StoreError` when that fails. */
export async function openPostgresOffloadStore(
  options: OpenPostgresOffloadStoreOptions,
): Promise<PostgresOffloadStore> {
  const { pool, ...rest } = options;
  await ensureOffloadSchema(pool);
  return new PostgresOffloadStore(pool, rest);
}
