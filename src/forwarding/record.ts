import { timeOrderedId } from "../crypto/secrets.ts";
import type { ForwardedEventMessage } from "../events/messages.ts";
import type { Logger } from "pino";
import type { Sql } from "../db/sql.ts";
import type { Clock } from "../clock.ts";
import type { WakeSignal } from "../events/wakeSignal.ts";
import type { EventBus } from "../events/bus.ts";
import { type BodyClaim, createEnqueuer, type Enqueuer, type EventToEnqueue } from "../delivery/queue/enqueue.ts";
import type { LocalHandoff } from "../delivery/handoff.ts";
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
  /** The watched resource's params when the event came from a resource's subscription (§13). */
  resource?: Record<string, string> | null;
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

export const newEventId = () => timeOrderedId("evt");

/** What recording an event needs: the statement, the worker's wake-up and the live bus. */
export interface EventRecorderDeps {
  sql: Sql;
  /** Where the accepting statement runs (Database.recordingSql). */
  recordingSql: Sql;
  signal: WakeSignal;
  bus: EventBus;
  logger: Logger;
  clock: Clock;
  /** This process's worker, when one runs here: it takes deliveries straight from the statement. */
  handoff?: LocalHandoff;
}

/** The recorder's own state: the group commit over the accepting statement. */
interface Recording extends EventRecorderDeps {
  enqueue: Enqueuer;
}

/** An inbound event and its delivery, stored in one statement (recordEvent, recordRoutedEvent below). */
export interface EventRecorder {
  record(deploymentId: string, event: EventToRecord, options?: RecordOptions): Promise<RecordedEvent>;
  recordRouted(deploymentId: string, event: EventToRoute): Promise<RoutedOutcome>;
}

/**
 * Callers have already settled whose deployment this is: a verified inbound request names it by
 * its path and secret, a poll by its connected account, sendTestEvent by the access guard.
 */
export function createEventRecorder(given: EventRecorderDeps): EventRecorder {
  const deps: Recording = {
    ...given,
    enqueue: createEnqueuer({ sql: given.recordingSql, clock: given.clock, logger: given.logger, reserve: (max) => given.handoff?.reserve(max) }),
  };
  return {
    record: (deploymentId, event, options) => recordEvent(deps, deploymentId, event, options),
    recordRouted: (deploymentId, event) => recordRoutedEvent(deps, deploymentId, event),
  };
}

/**
 * Stores an event and — only when its (connector, trigger) is in the deployment's Forwarding
 * Trigger List and a forwarding URL is set (or it is a test event) — its Delivery, in ONE statement, so they commit
 * together or not at all: once this returns, the event will be delivered even if the process dies
 * the next instant. While forwarding is paused or disabled the delivery is recorded held (no
 * next_attempt_at); the claim re-checks the status anyway, so a pause racing this insert still holds it. A retry of a stored event (same dedupe key) writes nothing and returns the
 * stored one. Publishes after the commit and wakes this process's worker.
 */
async function recordEvent(deps: Recording, deploymentId: string, event: EventToRecord, options: RecordOptions = {}): Promise<RecordedEvent> {
  const recorded = await insertEvent(deps, deploymentId, event, {
    account: event.account,
    connectedAccountId: event.connectedAccountId,
    forwardUnlisted: options.forwardUnlisted,
  });
  if (!recorded || recorded === "replayed") throw new Error("an event with a given account was not stored");
  return recorded;
}

/** A connection by its row id and its account name: what an event recorded for it carries. */
export type KnownConnection = { id: string; account: string };

/** An inbound event before routing: who it is for is known by the provider's ids, or given. */
export type EventToRoute = Omit<EventToRecord, "account" | "connectedAccountId"> & {
  /** The connector's candidate external ids, most specific first. */
  externalIds: string[];
  /** The connection it is for, when that is known already (a subscription's own URL, a read made with its token): not routed. */
  connection?: KnownConnection;
  /** Where else in a connection's metadata those ids route it (the declaration's `webhook.routingMetadata`). */
  routingMetadata?: string;
  /** The request's replay check, made by the same statement (../delivery/queue/enqueue.ts BodyClaim). */
  bodyClaim?: BodyClaim;
};

/** A routed event as stored; "unrouted": no account matched; "replayed": its body claim failed. Either way nothing was stored. */
export type RoutedOutcome = (RecordedEvent & { account: string }) | "unrouted" | "replayed";

/** A declaration path (`tenants[].tenantId`) as an SQL/JSON path (`$."tenants"[*]."tenantId"`). */
function sqlJsonPath(path: string): string {
  return `$${path
    .split(".")
    .map((step) => {
      const array = step.endsWith("[]");
      const name = array ? step.slice(0, -2) : step;
      // Declaration paths hold only letters, digits and _$@-: quoted as they are.
      return `."${name}"${array ? "[*]" : ""}`;
    })
    .join("")}`;
}

/**
 * Routes and records in the same one statement (one round trip per inbound event): the body claim
 * when given, then the ACTIVE ConnectedAccount of this deployment and connector for the most
 * specific external id (the oldest connection when several share it) — or the connection given —
 * then as recordEvent.
 */
async function recordRoutedEvent(deps: Recording, deploymentId: string, event: EventToRoute): Promise<RoutedOutcome> {
  const { bodyClaim, connection, externalIds } = event;
  if (connection) {
    return (await insertEvent(deps, deploymentId, event, { account: connection.account, connectedAccountId: connection.id, bodyClaim })) ?? "unrouted";
  }
  // Without an id nothing can match; a claim still has to be made, so only a claimless event stops here.
  if (externalIds.length === 0 && !bodyClaim) return "unrouted";
  const routeByMetadata = event.routingMetadata ? sqlJsonPath(event.routingMetadata) : null;
  const recorded = await insertEvent(deps, deploymentId, event, { account: "", connectedAccountId: null, routeBy: externalIds, routeByMetadata, bodyClaim });
  return recorded ?? "unrouted";
}

/** The event's own fields; who it is for comes with the Insertion. */
type EventFields = Omit<EventToRecord, "account" | "connectedAccountId">;

/** How insertEvent stores an event beyond its fields: for whom (given, or routed) and with which checks. */
interface Insertion {
  /** The account's name and row, when given; routed: "" and null. */
  account: string;
  connectedAccountId: string | null;
  /** Route by these external ids, most specific first; absent: the given account. */
  routeBy?: string[];
  /** An SQL/JSON path in an account's metadata whose values also route (sqlJsonPath). */
  routeByMetadata?: string | null;
  /** The request's replay check, made by the same statement. */
  bodyClaim?: BodyClaim;
  /** Queue a delivery even when the trigger is not in the Forwarding Trigger List (sendTestEvent). */
  forwardUnlisted?: boolean;
}

/**
 * The event's fields are read here one by one into what enqueue stores, not spread into objects
 * along the way: every inbound event passes here, and the copies between acceptEvents and the
 * statement were 2.4 % of the service's busy time at the maximum rate (docs/benchmarks.md).
 */
async function insertEvent(
  deps: Recording,
  deploymentId: string,
  given: EventFields,
  { account, connectedAccountId, routeBy, routeByMetadata = null, bodyClaim, forwardUnlisted = false }: Insertion,
): Promise<(RecordedEvent & { account: string }) | "replayed" | undefined> {
  // Everything here came from a provider (a webhook body, an API answer): a NUL or an unpaired
  // surrogate would fail the statement, and the provider would redeliver into the same failure
  // forever. Replaced instead (src/text/storable.ts); the data published and forwarded is the
  // data stored.
  const { json: payloadJson, value: data } = storableJson(given.data);
  const enqueued: EventToEnqueue = {
    eventId: newEventId(),
    deliveryId: timeOrderedId("dlv"),
    deploymentId,
    connectedAccountId,
    connector: given.connector,
    trigger: storableText(given.trigger),
    account: storableText(account),
    payloadJson,
    resource: given.resource ?? null,
    occurredAt: given.occurredAt,
    dedupeKey: storableText(given.dedupeKey),
    forwardUnlisted,
    routeBy: routeBy ? routeBy.map(storableText) : null,
    routeByMetadata,
    bodyClaim: bodyClaim ? { digest: bodyClaim.digest, key: storableText(bodyClaim.key), windowSeconds: bodyClaim.windowSeconds } : null,
  };
  // Group-committed with the events arriving meanwhile (one statement per batch); resolves once committed.
  const row = await deps.enqueue(enqueued);
  if (row?.replayed) return "replayed";
  // Routing found no account: nothing stored.
  if (!row || row.account === null) return undefined;
  if (!row.event_id) return { ...(await existingEvent(deps, deploymentId, enqueued.dedupeKey)), account: row.account };

  const recorded = {
    eventId: row.event_id,
    created: true,
    deliveryId: row.delivery_id,
    receivedAt: row.received_at ? new Date(row.received_at) : new Date(),
    account: row.account,
  };
  if (recorded.deliveryId) {
    // Unless the local worker already took it (leased to it by the statement), a claim picks it up.
    if (!row.leased) deps.signal.notify();
    // The subscription is "every event accepted for forwarding": stored-only events are not in it.
    publishForwardedEvent(deps, enqueued, row.account, data, recorded);
  }
  return recorded;
}

async function existingEvent(deps: EventRecorderDeps, deploymentId: string, dedupeKey: string): Promise<RecordedEvent> {
  const rows = await deps.sql.query<{ id: string; received_at: Date | string; delivery_id: string | null }>(
    `select e.id, e.received_at at time zone 'UTC' as received_at,
            (select d.id from delivery d where d.event_id = e.id order by d.created_at limit 1) as delivery_id
     from trigger_event e where e.deployment_id = $1 and e.dedupe_key = $2`,
    [deploymentId, dedupeKey],
  );
  const row = rows[0];
  if (!row) throw new Error("a deduplicated event vanished (deleted concurrently)");
  return { eventId: row.id, created: false, deliveryId: row.delivery_id, receivedAt: new Date(row.received_at) };
}

function publishForwardedEvent(deps: EventRecorderDeps, event: EventToEnqueue, account: string, payload: Record<string, unknown>, recorded: RecordedEvent) {
  const { deploymentId } = event;
  const message: ForwardedEventMessage = {
    id: recorded.eventId,
    deploymentId,
    type: `${event.connector}.${event.trigger}`,
    connector: event.connector,
    trigger: event.trigger,
    account,
    occurredAt: event.occurredAt.toISOString(),
    payload,
    resource: event.resource ?? null,
    delivery: recorded.deliveryId ? { id: recorded.deliveryId, status: "PENDING", attempts: 0, lastStatusCode: null } : null,
  };
  try {
    deps.bus.publish("forwardedEvent", deploymentId, message);
  } catch (error) {
    deps.logger.warn({ err: error }, "could not publish a forwarded event");
  }
}
