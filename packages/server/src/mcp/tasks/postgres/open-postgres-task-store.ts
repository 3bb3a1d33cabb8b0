/** Opening the PostgreSQL task store on the instance's pool: its table created when missing. */
import type pg from "pg";
import { PostgresTaskStore, type PostgresTaskStoreOptions } from "./postgres-task-store.js";
import { ensureTaskSchema } from "./task-schema.js";

/** Options of {@link openPostgresTaskStore}. */
type OpenPostgresTaskStoreOptions = PostgresTaskStoreOptions & {
  /** The instance's pool (`openPostgresPool`); its opener ends it. */
  pool: pg.Pool;
};

/** Create the store's table when missing; a `StoreError` when that fails. */
export async function openPostgresTaskStore<R>(
  options: OpenPostgresTaskStoreOptions,
): Promise<PostgresTaskStore<R>> {
  const { pool, ...rest } = options;
  await ensureTaskSchema(pool);
  return new PostgresTaskStore<R>(pool, rest);
}
