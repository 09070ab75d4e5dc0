import type pg from "pg";

/**
 * The driver underneath Prisma, for the few places that need plain SQL: the migration runner
 * (multi-statement files, advisory locks) and hot paths measured in bench/ (the /api/data page,
 * the delivery claim with FOR UPDATE SKIP LOCKED).
 */
export interface Sql {
  /**
   * `name` makes it a named prepared statement: each connection (PGlite's one session too,
   * ./pgliteSql.ts) parses and plans it once, later executions skip both (a hot statement's
   * planning can cost more than running it). One name must always carry the same text. Both
   * drivers hand json and jsonb columns over parsed (a column holding a JSON string arrives as that
   * string).
   */
  query<Row = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<Row[]>;
  /** Runs `work` on one connection (advisory locks are per connection). */
  withConnection<T>(work: (connection: SqlConnection) => Promise<T>): Promise<T>;
  /**
   * The database runs on this thread (PGlite): while a statement runs, nothing else does, not even
   * reading requests. Absent for a server's pools, whose statements run while the thread works.
   */
  runsOnThisThread?: boolean;
}

export interface SqlConnection {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  /** Several statements at once, no parameters. */
  exec(text: string): Promise<void>;
}

export function sqlOverPool(pool: pg.Pool): Sql {
  return {
    async query(text, params, name) {
      if (name === undefined) return (await pool.query(text, params as unknown[])).rows;
      return (await pool.query({ name, text, values: params as unknown[] })).rows;
    },
    async withConnection(work) {
      const client = await pool.connect();
      // A client out of the pool has no listener of the pool's, and a connection the server ends (a
      // restart, pg_terminate_backend) emits 'error' even while a statement runs: unheard, that
      // would end the process. The statement fails on its own. A client whose work failed is
      // discarded, not pooled: its connection may be ending, mid-transaction or with a setting changed.
      let discard = false;
      const onError = () => (discard = true);
      client.on("error", onError);
      try {
        return await work({
          query: async (text, params) => (await client.query(text, params as unknown[])).rows,
          exec: async (text) => {
            await client.query(text);
          },
        });
      } catch (error) {
        discard = true;
        throw error;
      } finally {
        client.removeListener("error", onError);
        client.release(discard);
      }
    },
  };
}

/**
 * Runs `work` on a PostgreSQL server's connection with no statement_timeout, reset afterwards: the
 * request pool's timeout is for requests, not for waiting on another instance's migrations or
 * vacuuming a large table. (PGlite has no timeout to lift.)
 */
export async function withoutStatementTimeout<T>(connection: SqlConnection, work: () => Promise<T>): Promise<T> {
  await connection.exec("set statement_timeout = 0");
  try {
    return await work();
  } finally {
    await connection.exec("reset statement_timeout");
  }
}
