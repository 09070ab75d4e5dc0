import { badInput } from "../errors.ts";
import type { Sql } from "../db/sql.ts";
import { EventsDropped, LiveDegraded, type Subscription } from "./bus.ts";
import type { DeliverySummary, ForwardedEventMessage } from "./messages.ts";

/**
 * Resuming a live stream of forwarded events (`forwardedEvents(after:)`, SSE `Last-Event-ID`).
 *
 * The seam: the caller subscribes to the live bus FIRST and waits until it is listening, then this
 * reads the backlog from the database. An event committed before the subscription was listening is
 * in the backlog; one committed after it is published to the subscription (publishing happens after
 * the commit). An event in both is sent once: live messages whose id the backlog already sent are
 * dropped. "Later" is the order Switchyard accepted events in (received time, then id).
 */

/** A replayed event, marked with how many older missed events were left out (first message only). */
export type ReplayedEvent = ForwardedEventMessage & { skipped?: number };

/** Throws BAD_USER_INPUT unless `eventId` names an event of this deployment. */
export async function assertEventOfDeployment(sql: Sql, deploymentId: string, eventId: string): Promise<void> {
  const rows = await sql.query<{ id: string }>(`select id from trigger_event where id = $1 and deployment_id = $2`, [eventId, deploymentId]);
  if (rows.length === 0) {
    throw badInput(`"after" must be the id of an event of this deployment; ${JSON.stringify(eventId)} is not one (it may also have expired).`, [
      { field: "after", message: "no such event in this deployment" },
    ]);
  }
}

/** The events accepted for forwarding after `eventId`, oldest first: the newest `limit` of them, and how many older ones did not fit. */
export async function eventsAfter(
  sql: Sql,
  deploymentId: string,
  eventId: string,
  limit: number,
): Promise<{ events: ForwardedEventMessage[]; skipped: number }> {
  const rows = await sql.query<{
    id: string;
    connector: string;
    trigger: string;
    account: string;
    occurred_at: Date | string;
    payload: unknown;
    resource: unknown;
    delivery_id: string;
    status: DeliverySummary["status"];
    attempts: number;
    last_status_code: number | null;
    total: string | number;
  }>(
    // Newest first so LIMIT keeps the newest; the window count (taken before LIMIT) gives the total.
    `with anchor as (select received_at, id from trigger_event where id = $2 and deployment_id = $1)
     select e.id, e.connector, e.trigger, e.account, e.occurred_at at time zone 'UTC' as occurred_at, e.payload, e.resource,
            d.id as delivery_id, d.status::text as status, d.attempts, d.last_status_code, count(*) over () as total
     from trigger_event e
     cross join anchor
     join lateral (
       select id, status, attempts, last_status_code from delivery where event_id = e.id order by created_at desc, id desc limit 1
     ) d on true
     where e.deployment_id = $1 and (e.received_at, e.id) > (anchor.received_at, anchor.id)
     order by e.received_at desc, e.id desc
     limit $3`,
    [deploymentId, eventId, limit],
  );
  const total = rows.length > 0 ? Number(rows[0].total) : 0;
  const events = rows.reverse().map(
    (row): ForwardedEventMessage => ({
      id: row.id,
      deploymentId,
      type: `${row.connector}.${row.trigger}`,
      connector: row.connector,
      trigger: row.trigger,
      account: row.account,
      occurredAt: new Date(row.occurred_at).toISOString(),
      payload: row.payload,
      resource: row.resource as Record<string, string> | null,
      delivery: { id: row.delivery_id, status: row.status, attempts: row.attempts, lastStatusCode: row.last_status_code },
    }),
  );
  return { events, skipped: Math.max(0, total - events.length) };
}

/**
 * The backlog, then the live subscription without the events the backlog already sent. Ending this
 * iterator ends the live subscription.
 */
export function resumed(
  live: Subscription<ForwardedEventMessage>,
  backlog: { events: ForwardedEventMessage[]; skipped: number },
): AsyncIterableIterator<ReplayedEvent | EventsDropped | LiveDegraded> {
  const sent = new Set(backlog.events.map((event) => event.id));
  const queued: ReplayedEvent[] = backlog.events.map((event) => ({ ...event }));
  if (backlog.skipped > 0) {
    // Said on the first message, so a client never loses events silently; with nothing to send
    // but skipped ones (impossible: skipped > 0 implies a full page) there is no first message.
    queued[0].skipped = backlog.skipped;
  }
  const iterator: AsyncIterableIterator<ReplayedEvent | EventsDropped | LiveDegraded> = {
    [Symbol.asyncIterator]: () => iterator,
    async next() {
      const next = queued.shift();
      if (next) return { value: next, done: false };
      for (;;) {
        const result = await live.next();
        if (result.done) return result;
        if (result.value instanceof EventsDropped || result.value instanceof LiveDegraded || !sent.has(result.value.id)) return result;
      }
    },
    async return() {
      queued.length = 0;
      await live.return?.();
      return { value: undefined, done: true };
    },
    async throw(error: unknown) {
      await live.return?.();
      throw error;
    },
  };
  return iterator;
}
