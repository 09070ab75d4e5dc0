/**
 * Polling health as the operator reads it on a connection (REST `polling`, GraphQL
 * `ConnectedAccount.polling`): how its polls have gone lately, as the poller recorded them
 * (connections/store/pollRecord.ts). Null for a connection of which nothing is polled (no polled
 * trigger of its connector is listed); a listed one not polled yet shows nulls and zero failures.
 */
import { LISTED, type PolledPairs } from "../connections/store/index.ts";
import type { PollingHealthView } from "../connections/connection.ts";
import type { Sql } from "../db/sql.ts";

interface HealthRow {
  id: string;
  listed: boolean;
  last_polled_at: Date | string | null;
  last_poll_succeeded_at: Date | string | null;
  last_poll_error: string | null;
  poll_failures: number;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** `pairs` is asked for on first use: it reads the whole catalog, which start-up does not load. */
export function createPollingHealth({ sql, pairs: polledPairs }: { sql: Sql; pairs: () => PolledPairs }) {
  /** The health of each of these connections (by id): one statement for a page of them. */
  async function query(connectionIds: readonly string[]): Promise<Map<string, PollingHealthView | null>> {
    const health = new Map<string, PollingHealthView | null>();
    const pairs = polledPairs();
    if (connectionIds.length === 0 || pairs.connectors.length === 0) return health;
    const rows = await sql.query<HealthRow>(
      `select a.id, ${LISTED("$2", "$3")} as listed,
         a.last_polled_at at time zone 'UTC' as last_polled_at, a.last_poll_succeeded_at at time zone 'UTC' as last_poll_succeeded_at,
         a.last_poll_error, a.poll_failures
       from connected_account a
       where a.id = any($1::text[])`,
      [[...connectionIds], pairs.connectors, pairs.triggers],
      "polling_health",
    );
    for (const row of rows) {
      health.set(
        row.id,
        row.listed
          ? { lastPolledAt: iso(row.last_polled_at), lastSucceededAt: iso(row.last_poll_succeeded_at), lastError: row.last_poll_error, consecutiveFailures: Number(row.poll_failures) }
          : null,
      );
    }
    return health;
  }

  // Reads asked for in one turn of the event loop share one statement: GraphQL resolves
  // ConnectedAccount.polling once per node of a page, and a page costs one query, not one per node.
  type Batch = { ids: Set<string>; result: Promise<Map<string, PollingHealthView | null>> };
  let batch: Batch | undefined;

  /** `query`, batched: the map may hold more connections than asked for; read yours by id. */
  function read(connectionIds: readonly string[]): Promise<Map<string, PollingHealthView | null>> {
    if (!batch) {
      const next: Batch = { ids: new Set(), result: Promise.resolve(new Map()) };
      next.result = Promise.resolve().then(() => {
        batch = undefined;
        return query([...next.ids]);
      });
      batch = next;
    }
    for (const id of connectionIds) batch.ids.add(id);
    return batch.result;
  }
  return { read };
}
