import { badInput } from "../errors.ts";
import type { DeliveryStatus } from "../events/messages.ts";
import type { Sql } from "../db/sql.ts";

/**
 * The Events page's query: a deployment's events, newest first by the time Switchyard accepted them
 * (received_at, then id to break ties), in keyset pages. The cursor is the last row's
 * (received_at, id), so page 1,000 is the same index range scan on (deployment_id, received_at, id)
 * as page 1 — no OFFSET walk, no count(*).
 *
 * Filters narrow that scan: connector, trigger, account and the time range are plain predicates on
 * the event row; `status` is the status of the event's latest delivery (by created_at, id; an event
 * without a delivery matches no status). With a status the scan walks delivery instead, through its
 * (deployment_id, status, event_received_at, event_id) index — the same keyset, since each delivery
 * carries its event's received_at — and keeps a delivery when no later one of its event exists. So a
 * rare status costs what a common one does, and nothing is written to the event row when a delivery
 * changes status (the forwarding path's widest write, before). Only the conditions given are written
 * into the statement, so the planner sees exactly the query it runs.
 */

export interface EventFilter {
  id?: string | null;
  status?: DeliveryStatus | null;
  connector?: string | null;
  trigger?: string | null;
  account?: string | null;
  since?: Date | null;
  until?: Date | null;
}

export interface EventLogPage {
  /** Event ids in page order, with their cursors. */
  edges: { id: string; cursor: string }[];
  hasNextPage: boolean;
}

export const EVENT_LOG_MAX_PAGE = 200;

export function encodeCursor(receivedAt: Date, id: string): string {
  return Buffer.from(JSON.stringify([receivedAt.toISOString(), id])).toString("base64url");
}

function decodeCursor(cursor: string): { receivedAt: string; id: string } {
  try {
    const [receivedAt, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (typeof receivedAt === "string" && typeof id === "string" && !Number.isNaN(Date.parse(receivedAt))) return { receivedAt, id };
  } catch {
    // fall through: one message for every malformed cursor
  }
  throw badInput("after: not a cursor of this list (use pageInfo.endCursor)", [{ field: "after", message: "is not a valid cursor" }]);
}

export async function eventLogPage(sql: Sql, deploymentId: string, filter: EventFilter, first: number, after: string | null): Promise<EventLogPage> {
  if (!Number.isInteger(first) || first < 1 || first > EVENT_LOG_MAX_PAGE) {
    throw badInput(`first: must be an integer from 1 to ${EVENT_LOG_MAX_PAGE}`, [{ field: "first", message: `must be from 1 to ${EVENT_LOG_MAX_PAGE}` }]);
  }
  const params: unknown[] = [deploymentId];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  // What the keyset walks: the event log's own index, or for one status delivery's, whose rows carry
  // their event's received_at (and its deployment: one statement writes both), keeping a delivery
  // when it is its event's latest.
  const { from, receivedAt, id, where } = filter.status
    ? {
        from: "delivery d join trigger_event e on e.id = d.event_id",
        receivedAt: "d.event_received_at",
        id: "d.event_id",
        where: [
          "d.deployment_id = $1",
          `d.status = ${param(filter.status)}::"DeliveryStatus"`,
          "not exists (select 1 from delivery later where later.event_id = d.event_id and (later.created_at, later.id) > (d.created_at, d.id))",
        ],
      }
    : { from: "trigger_event e", receivedAt: "e.received_at", id: "e.id", where: ["e.deployment_id = $1"] };
  if (after) {
    const cursor = decodeCursor(after);
    where.push(`(${receivedAt}, ${id}) < (${param(cursor.receivedAt)}::timestamp, ${param(cursor.id)}::text)`);
  }
  if (filter.id) where.push(`e.id = ${param(filter.id)}`);
  if (filter.connector) where.push(`e.connector = ${param(filter.connector)}`);
  if (filter.trigger) where.push(`e.trigger = ${param(filter.trigger)}`);
  if (filter.account) where.push(`e.account = ${param(filter.account)}`);
  if (filter.since) where.push(`${receivedAt} >= ${param(filter.since.toISOString())}::timestamp`);
  if (filter.until) where.push(`${receivedAt} <= ${param(filter.until.toISOString())}::timestamp`);
  const rows = await sql.query<{ id: string; received_at: Date | string }>(
    `select e.id, e.received_at at time zone 'UTC' as received_at from ${from}
     where ${where.join(" and ")}
     order by ${receivedAt} desc, ${id} desc
     limit ${param(first + 1)}`,
    params,
  );
  const page = rows.slice(0, first);
  return {
    edges: page.map((row) => ({ id: row.id, cursor: encodeCursor(new Date(row.received_at), row.id) })),
    hasNextPage: rows.length > first,
  };
}
