import type { Sql } from "../../db/sql.ts";

/** What enqueue stores: an event (already made storable) and, maybe, its delivery. */
export interface EventToEnqueue {
  eventId: string;
  deliveryId: string;
  deploymentId: string;
  connectedAccountId: string | null;
  connector: string;
  trigger: string;
  account: string;
  /** The event's data as JSON text. */
  payload: string;
  occurredAt: Date;
  dedupeKey: string;
  /** Queue a delivery even when the trigger is not in the Forwarding Trigger List (sendTestEvent). */
  forwardUnlisted: boolean;
  /** Route by these external ids (most specific first) instead of the given account; null: the given account. */
  routeBy: string[] | null;
  /**
   * An SQL/JSON path in the account's metadata whose values also route (after the external id
   * itself): a Xero connection's other organisations. null: the external id alone.
   */
  routeByMetadata: string | null;
}

export interface EnqueuedRow {
  account_id: string | null;
  account: string | null;
  event_id: string | null;
  delivery_id: string | null;
  url: string | null;
  received_at: Date | string | null;
}

/**
 * enqueue: (nothing) → PENDING, due now while the deployment forwards, held otherwise (HELD: paused,
 * disabled, or no forwarding URL saved yet). Stores the event and — only when its (connector,
 * trigger) is in the deployment's Forwarding Trigger List and a forwarding URL is set (or it is a
 * test event) — its delivery, in ONE statement, so they commit together or not at all. Routing (the
 * ACTIVE ConnectedAccount for the most specific external id, the oldest connection when several
 * share it) is in the same statement: one round trip per inbound event. A provider's retry (same
 * dedupe key) writes nothing: `event_id` comes back null. Nothing else is written: the account's
 * lastEventAt is derived from its newest event (connections/lastEventAt.ts), so two events of one
 * account never wait on each other's lock.
 */
export async function enqueue(sql: Sql, event: EventToEnqueue): Promise<EnqueuedRow | undefined> {
  const rows = await sql.query<EnqueuedRow>(
    // acct: the given account ($12 null), or the routed one ($12 = the candidate external ids).
    `with acct as (
       select id, account from (
         select a.id, a.account, array_position($12::text[], a.external_id) as rank, a.created_at
         from connected_account a
         where $12::text[] is not null and a.deployment_id = $2 and a.connector = $4 and a.status = 'ACTIVE'
           and a.external_id = any($12::text[])
         union all
         -- After the external id itself: an account whose metadata names one of the ids ($13, only
         -- for connectors that declare where; a one-time filter otherwise).
         select a.id, a.account, cardinality($12::text[]) + 1, a.created_at
         from connected_account a
         where $13::jsonpath is not null and $12::text[] is not null and a.deployment_id = $2 and a.connector = $4 and a.status = 'ACTIVE'
           and exists (select 1 from jsonb_path_query(a.metadata, $13::jsonpath) v where v #>> '{}' = any($12::text[]))
         union all
         select $3::text, $6::text, 0, null where $12::text[] is null
       ) candidates
       order by rank, created_at, id
       limit 1
     ), ins as (
       insert into trigger_event (id, deployment_id, connected_account_id, connector, trigger, account, payload, occurred_at, dedupe_key)
       select $1, $2, acct.id, $4, $5, acct.account, $7::jsonb, $8::timestamp, $9 from acct
       on conflict (deployment_id, dedupe_key) do nothing
       returning id, received_at
     ), target as (
       select s.forwarding_url, s.status = 'ACTIVE' as active from forwarding_settings s
       where s.deployment_id = $2
         and ($11::boolean or exists (
           select 1 from forwarding_trigger t where t.deployment_id = $2 and t.connector = $4 and t.trigger = $5))
       union all
       -- A test event before any forwarding URL is saved: queued, held, sent once a URL is saved.
       select null, false where $11::boolean and not exists (select 1 from forwarding_settings s where s.deployment_id = $2)
     ), del as (
       insert into delivery (id, event_id, deployment_id, url, next_attempt_at, updated_at)
       select $10, ins.id, $2, target.forwarding_url, case when target.active then now() end, now() from ins, target
       returning id, url
     )
     select (select id from acct) as account_id, (select account from acct) as account,
            (select id from ins) as event_id, (select received_at at time zone 'UTC' from ins) as received_at,
            (select id from del) as delivery_id, (select url from del) as url`,
    [
      event.eventId,
      event.deploymentId,
      event.connectedAccountId,
      event.connector,
      event.trigger,
      event.account,
      event.payload,
      event.occurredAt.toISOString(),
      event.dedupeKey,
      event.deliveryId,
      event.forwardUnlisted,
      event.routeBy,
      event.routeByMetadata,
    ],
    "record_event",
  );
  return rows[0];
}
