import { randomBytes } from "node:crypto";
import type { ForwardedEventMessage } from "../events/messages.ts";
import type { Services } from "../services.ts";
import { storableJson, storableText } from "../text/storable.ts";

/** An inbound event, normalized, routed to an account and ready to store. */
export interface EventToRecord {
  connector: string;
  trigger: string;
  /** The ConnectedAccount's `account` name ("test" for sendTestEvent). */
  account: string;
  connectedAccountId: string | null;
  /** Stable across provider retries; unique per deployment. */
  dedupeKey: string;
  occurredAt: Date;
  data: Record<string, unknown>;
}

export interface RecordedEvent {
  eventId: string;
  /** False when the provider retried something already stored: nothing new was written. */
  created: boolean;
  /** The queued delivery, when the event is forwarded. */
  deliveryId: string | null;
  receivedAt: Date;
}

export interface RecordOptions {
  /** Queue a delivery even when the trigger is not in the Forwarding Trigger List (sendTestEvent). */
  forwardUnlisted?: boolean;
}

export const newEventId = () => `evt_${randomBytes(12).toString("hex")}`;

/**
 * Stores an event and — only when its (connector, trigger) is in the deployment's Forwarding
 * Trigger List and a forwarding URL is set (or it is a test event) — its Delivery, in ONE statement, so they commit
 * together or not at all: once this returns, the event will be delivered even if the process dies
 * the next instant. While forwarding is paused or disabled the delivery is recorded held (no
 * next_attempt_at); the claim re-checks the status anyway, so a pause racing this insert still holds it. A retry of a stored event (same dedupe key) writes nothing and returns the
 * stored one. Publishes after the commit and wakes this process's worker.
 */
export async function recordEvent(services: Services, deploymentId: string, event: EventToRecord, options: RecordOptions = {}): Promise<RecordedEvent> {
  const recorded = await insertEvent(services, deploymentId, event, null, options);
  if (!recorded) throw new Error("an event with a given account was not stored");
  return recorded;
}

/** An inbound event before routing: who it is for is known only by the provider's ids. */
export type EventToRoute = Omit<EventToRecord, "account" | "connectedAccountId"> & {
  /** The connector's candidate external ids, most specific first. */
  externalIds: string[];
};

/**
 * Routes and records in the same one statement (one round trip per inbound event): the ACTIVE
 * ConnectedAccount of this deployment and connector for the most specific external id (the oldest
 * connection when several share it), then as recordEvent. Undefined when no account matches:
 * nothing is stored.
 */
export async function recordRoutedEvent(
  services: Services,
  deploymentId: string,
  event: EventToRoute,
): Promise<(RecordedEvent & { account: string }) | undefined> {
  if (event.externalIds.length === 0) return undefined;
  return insertEvent(services, deploymentId, { ...event, account: "", connectedAccountId: null }, event.externalIds, {});
}

async function insertEvent(
  services: Services,
  deploymentId: string,
  given: EventToRecord,
  givenRouteBy: string[] | null,
  options: RecordOptions,
): Promise<(RecordedEvent & { account: string }) | undefined> {
  // Everything here came from a provider (a webhook body, an API answer): a NUL or an unpaired
  // surrogate would fail the statement, and the provider would redeliver into the same failure
  // forever. Replaced instead (src/text/storable.ts); the data published and forwarded is the
  // data stored.
  const { json: payload, value: data } = storableJson(given.data);
  const event: EventToRecord = {
    ...given,
    trigger: storableText(given.trigger),
    account: storableText(given.account),
    dedupeKey: storableText(given.dedupeKey),
    data,
  };
  const routeBy = givenRouteBy && givenRouteBy.map(storableText);
  const eventId = newEventId();
  const deliveryId = `dlv_${randomBytes(12).toString("hex")}`;
  const rows = await services.sql.query<{
    account_id: string | null;
    account: string | null;
    event_id: string | null;
    delivery_id: string | null;
    url: string | null;
    received_at: Date | string | null;
  }>(
    // acct: the given account ($12 null), or the routed one ($12 = the candidate external ids).
    `with acct as (
       select id, account from (
         select a.id, a.account, array_position($12::text[], a.external_id) as rank, a.created_at
         from connected_account a
         where $12::text[] is not null and a.deployment_id = $2 and a.connector = $4 and a.status = 'ACTIVE'
           and a.external_id = any($12::text[])
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
      eventId,
      deploymentId,
      event.connectedAccountId,
      event.connector,
      event.trigger,
      event.account,
      payload,
      event.occurredAt.toISOString(),
      event.dedupeKey,
      deliveryId,
      options.forwardUnlisted === true,
      routeBy,
    ],
    "record_event",
  );
  const row = rows[0];
  // Routing found no account: nothing stored.
  if (!row || row.account === null) return undefined;
  const account = row.account;
  if (!row.event_id) return { ...(await existingEvent(services, deploymentId, event.dedupeKey)), account };

  const recorded: RecordedEvent = {
    eventId: row.event_id,
    created: true,
    deliveryId: row.delivery_id,
    receivedAt: row.received_at ? new Date(row.received_at) : new Date(),
  };
  if (recorded.deliveryId) {
    services.deliverySignal.notify();
    // The subscription is "every event accepted for forwarding": stored-only events are not in it.
    publishForwardedEvent(services, deploymentId, { ...event, account, connectedAccountId: row.account_id }, recorded);
  }
  return { ...recorded, account };
}

async function existingEvent(services: Services, deploymentId: string, dedupeKey: string): Promise<RecordedEvent> {
  const rows = await services.sql.query<{ id: string; received_at: Date | string; delivery_id: string | null }>(
    `select e.id, e.received_at at time zone 'UTC' as received_at,
            (select d.id from delivery d where d.event_id = e.id order by d.created_at limit 1) as delivery_id
     from trigger_event e where e.deployment_id = $1 and e.dedupe_key = $2`,
    [deploymentId, dedupeKey],
  );
  const row = rows[0];
  if (!row) throw new Error("a deduplicated event vanished (deleted concurrently)");
  return { eventId: row.id, created: false, deliveryId: row.delivery_id, receivedAt: new Date(row.received_at) };
}

function publishForwardedEvent(services: Services, deploymentId: string, event: EventToRecord, recorded: RecordedEvent) {
  const message: ForwardedEventMessage = {
    id: recorded.eventId,
    deploymentId,
    type: `${event.connector}.${event.trigger}`,
    connector: event.connector,
    trigger: event.trigger,
    account: event.account,
    occurredAt: event.occurredAt.toISOString(),
    payload: event.data,
    delivery: recorded.deliveryId ? { id: recorded.deliveryId, status: "PENDING", attempts: 0, lastStatusCode: null } : null,
  };
  try {
    services.events.publish("forwardedEvent", deploymentId, message);
  } catch (error) {
    services.logger.warn({ err: error }, "could not publish a forwarded event");
  }
}
