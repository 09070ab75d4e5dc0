import DataLoader from "dataloader";
import type { Sql } from "../db/sql.ts";

/**
 * A connection's lastEventAt: when its newest event of its own connector was recorded (not a
 * lifecycle event Switchyard emits about it). Derived from trigger_event through its
 * (connected_account_id, received_at) index, read backwards — one index probe per connection — instead of a
 * column the event's own statement wrote: that write made every event of one busy account wait on
 * the previous one's row lock.
 */
export async function lastEventAts(sql: Sql, accounts: ReadonlyArray<{ id: string; connector: string }>): Promise<Map<string, Date>> {
  if (accounts.length === 0) return new Map();
  const rows = await sql.query<{ id: string; last_event_at: Date | string | null }>(
    `select a.id,
            (select e.received_at at time zone 'UTC' from trigger_event e
             where e.connected_account_id = a.id and e.connector = a.connector
             order by e.received_at desc limit 1) as last_event_at
     from unnest($1::text[], $2::text[]) as a(id, connector)`,
    [accounts.map((a) => a.id), accounts.map((a) => a.connector)],
    "connection_last_event_at",
  );
  return new Map(rows.filter((row) => row.last_event_at !== null).map((row) => [row.id, new Date(row.last_event_at!)]));
}

/** The rows with their lastEventAt filled in (one statement for them all). */
export async function withLastEventAt<T extends { id: string; connector: string }>(sql: Sql, rows: readonly T[]): Promise<Array<T & { lastEventAt: Date | null }>> {
  const last = await lastEventAts(sql, rows);
  return rows.map((row) => ({ ...row, lastEventAt: last.get(row.id) ?? null }));
}

/**
 * lastEventAts for GraphQL, where `ConnectedAccount.lastEventAt` is resolved once per node of a
 * page: the connections asked for in one tick share one statement (DataLoader's batching, no cache:
 * each read sees the newest event).
 */
export function createLastEventAtLoader(sql: Sql) {
  return new DataLoader<{ id: string; connector: string }, Date | null, string>(
    async (accounts) => {
      const last = await lastEventAts(sql, accounts);
      return accounts.map((account) => last.get(account.id) ?? null);
    },
    { cache: false },
  );
}

export type LastEventAtLoader = ReturnType<typeof createLastEventAtLoader>;
