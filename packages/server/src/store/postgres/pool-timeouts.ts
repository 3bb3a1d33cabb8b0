/**
 * The settings of an instance's PostgreSQL pool, free of the driver (the
 * configuration reads them without loading it): how many connections, and how
 * long a connection and a statement may take. A database that stops answering
 * (a partition, a stalled host) fails each request within these bounds with
 * `UNAVAILABLE` instead of holding it for good.
 */

/**
 * Connections of an instance's pool unless `[store] pool_size` says otherwise:
 * room for the memory reads (streamed ones hold a connection to their end),
 * offload publishes and task writes of one busy instance at once.
 */
export const DEFAULT_POOL_SIZE = 16;

export interface PostgresTimeouts {
  /** Opening a connection, or waiting for a pooled one (`[store] connect_timeout_seconds`). */
  connectTimeoutMs: number;
  /** One statement (`[store] statement_timeout_seconds`). */
  statementTimeoutMs: number;
}

export const DEFAULT_CONNECT_TIMEOUT_SECONDS = 5;
export const DEFAULT_STATEMENT_TIMEOUT_SECONDS = 30;

const DEFAULT_POSTGRES_TIMEOUTS: PostgresTimeouts = {
  connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_SECONDS * 1000,
  statementTimeoutMs: DEFAULT_STATEMENT_TIMEOUT_SECONDS * 1000,
};

/**
 * The `pg.Pool` options bounding both: `statement_timeout` has the server
 * cancel a slow statement; `query_timeout` has the driver give up on a server
 * that answers nothing at all, which no server-side setting can bound. The
 * driver's bound covers a cursor's whole life, so a streamed read ends within
 * it too.
 */
export function poolTimeouts(t: PostgresTimeouts = DEFAULT_POSTGRES_TIMEOUTS): {
  connectionTimeoutMillis: number;
  statement_timeout: number;
  query_timeout: number;
} {
  return {
    connectionTimeoutMillis: t.connectTimeoutMs,
    statement_timeout: t.statementTimeoutMs,
    query_timeout: t.statementTimeoutMs,
  };
}
