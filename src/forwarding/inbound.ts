import { CONNECTION_READER, movePosition } from "../changes/positions.ts";
import { connectionChangeReader } from "../connectors/changes.ts";
import { resolveEndpoints } from "../connectors/registry.ts";
import { bodyDigest } from "../connectors/signatures.ts";
import type { ConnectorDefinition, NormalizedEvent, SyncNotification } from "../connectors/types.ts";
import { bearerFetchJson } from "../oauth/provider.ts";
import type { Clock } from "../clock.ts";
import type { Sql } from "../db/sql.ts";
import { type AccessTokens, ReauthRequiredError } from "../connections/accessTokens.ts";
import type { EventRecorder, KnownConnection } from "./record.ts";

/**
 * Verified inbound events → stored events (and deliveries). Nothing here knows a provider:
 * routing is by the connector's `externalIds`, deduplication by its `dedupeKey`.
 *
 * - An event for no ACTIVE ConnectedAccount of this deployment is not stored at all (`unrouted`):
 *   nobody authorized us to act on it.
 * - An event for a connected account whose trigger is not in the Forwarding Trigger List is stored
 *   without a delivery, so the console can show what arrives before the operator picks triggers.
 */
export interface InboundOutcome {
  /** Events the provider's request carried (after fetching, for notification-only pushes). */
  received: number;
  /** Newly stored. */
  recorded: number;
  /** Already stored (a provider retry): nothing new written. */
  duplicates: number;
  /** Newly stored and queued for the forwarding URL. */
  forwarded: number;
  /** Not for any account connected to this deployment: not stored. */
  unrouted: number;
}

/** What accepting inbound events is built from. */
export interface InboundDeps {
  sql: Sql;
  clock: Clock;
  connectorEnv: Record<string, string | undefined>;
  /** Tokens of connected accounts, for notification-only pushes and polls that read the changes. */
  accessTokens: Pick<AccessTokens, "fresh">;
  /** Records one event and its delivery in one statement (forwarding/record.ts). */
  recordRoutedEvent: EventRecorder["recordRouted"];
  /**
   * Disconnects a connection whose grant the provider says is gone (an APP_INSTALLATION connector's
   * `installation.disconnectOn` triggers: GitHub's `installation.deleted`), as a DELETE by the operator would.
   */
  disconnect?: (deploymentId: string, connector: string, account: string) => Promise<void>;
}

/** A connection events are routed to; `cursor`: its own change reader's position (changes/positions.ts). */
export type Account = { id: string; account: string; externalId: string; cursor: string | null; createdAt: Date };

/** Nothing received: the sum of a request that carried no events. */
export const emptyOutcome = (): InboundOutcome => ({ received: 0, recorded: 0, duplicates: 0, forwarded: 0, unrouted: 0 });

async function findAccounts(deps: InboundDeps, deploymentId: string, connector: string, externalIds: string[]): Promise<Account[]> {
  if (externalIds.length === 0) return [];
  // Plain SQL: every inbound event routes through here (Prisma's query compiler costs more CPU than the query).
  const rows = await deps.sql.query<{ id: string; account: string; external_id: string; cursor: string | null; created_at: Date | string }>(
    `select a.id, a.account, a.external_id, p.cursor, a.created_at at time zone 'UTC' as created_at
     from connected_account a left join change_position p on p.connected_account_id = a.id and p.reader = $4
     where a.deployment_id = $1 and a.connector = $2 and a.status = 'ACTIVE' and a.external_id = any($3::text[])
     order by a.created_at, a.id`,
    [deploymentId, connector, [...new Set(externalIds)], CONNECTION_READER],
    "inbound_find_accounts",
  );
  return rows.map((row) => ({
    id: row.id,
    account: row.account,
    externalId: row.external_id,
    cursor: row.cursor,
    createdAt: new Date(row.created_at),
  }));
}

/** The account for the most specific external id; the oldest connection when several share it. */
function route(accounts: Account[], externalIds: string[]): Account | undefined {
  for (const externalId of externalIds) {
    const account = accounts.find((a) => a.externalId === externalId);
    if (account) return account;
  }
  return undefined;
}

/**
 * How deeply a stored payload may nest (objects and arrays; the top level is 1). Real provider
 * payloads nest a few levels (GitHub ~6, Jira's document format ~20); a 9 KB body can nest 4,500
 * levels, which overflows the stack of every recursive JSON walker downstream (JSON.stringify first),
 * and a verified delivery that fails is redelivered by its provider forever.
 */
export const MAX_PAYLOAD_DEPTH = 128;

/**
 * Whether `value` holds an object or array more than `levelsLeft` levels below it. Recursive, but
 * never deeper than MAX_PAYLOAD_DEPTH calls: it stops there. Every inbound event passes here: a walk
 * with its own stack of [value, depth] pairs over Object.values cost ten times as long on the
 * forwarding benchmark's GitHub payload (1.2 against 0.1 µs).
 */
function nestsDeeper(value: object, levelsLeft: number): boolean {
  if (levelsLeft === 0) return true;
  if (Array.isArray(value)) {
    for (const child of value) if (child !== null && typeof child === "object" && nestsDeeper(child, levelsLeft - 1)) return true;
    return false;
  }
  // Parsed JSON and the shapes built from it: plain objects, nothing enumerable inherited.
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    if (child !== null && typeof child === "object" && nestsDeeper(child, levelsLeft - 1)) return true;
  }
  return false;
}

/** What is stored and forwarded instead of a payload nested too deeply: the event is kept, its data is not. */
export const tooDeepPlaceholder = () => ({
  switchyard: {
    omitted: "payload_too_deep",
    detail: `The provider's payload nested deeper than ${MAX_PAYLOAD_DEPTH} levels, so it was not stored.`,
    maxDepth: MAX_PAYLOAD_DEPTH,
  },
});

/** The request the events came in, for the replay check (webhooks only; absent for polls and fetched changes). */
export interface InboundSource {
  rawBody: Buffer;
  now: Date;
}

/**
 * Where events came from. `request`: the provider's request they came in, for the replay check
 * (absent for what Switchyard read itself). `connection`: the connection they are for, when that is
 * known before routing — a subscription's own URL or a read made with the connection's token — and
 * the `reader` whose keys deduplicate them: the subscription, or the connected account for its own
 * reader and its polls. Such events are that connection's, whatever other connection shares its
 * external id, and two connections that see one item under one id (one meeting in an organizer's
 * and an attendee's calendar, one card action on a board both watch) each forward it. Without a
 * connection, events are routed by their external ids and deduplicated across the deployment by
 * the provider's delivery ids.
 */
export interface EventOrigin {
  request?: InboundSource;
  connection?: { reader: string; account: KnownConnection };
}

async function acceptEvents(
  deps: InboundDeps,
  deploymentId: string,
  def: ConnectorDefinition,
  events: NormalizedEvent[],
  origin: EventOrigin,
): Promise<InboundOutcome> {
  const outcome = emptyOutcome();
  outcome.received = events.length;
  const windowSeconds = def.inbound.replayWindowSeconds;
  const source = origin.request;
  const connection = origin.connection;
  // Per connector, so two providers' ids can never collide; per reader for a known connection (EventOrigin).
  const keyPrefix = connection ? `${def.name}:${connection.reader}:` : `${def.name}:`;
  // The replay check of schemes that sign no timestamp, made by the first event's own statement.
  let bodyClaim =
    source && windowSeconds ? { digest: bodyDigest(source.rawBody), key: events.map((event) => event.dedupeKey).join(" "), windowSeconds } : undefined;
  for (const event of events) {
    // Routed to the account inside the recording statement (unless it is given): one round trip per event.
    const recorded = await deps.recordRoutedEvent(deploymentId, {
      bodyClaim,
      connector: def.name,
      trigger: event.trigger,
      externalIds: event.externalIds,
      routingMetadata: def.declaration.webhook?.routingMetadata,
      connection: connection?.account,
      dedupeKey: `${keyPrefix}${event.dedupeKey}`,
      // The provider said nothing readable: when its request came, or when Switchyard read the change.
      occurredAt: event.occurredAt ?? source?.now ?? deps.clock.now(),
      resource: event.resource ?? null,
      data: nestsDeeper(event.data, MAX_PAYLOAD_DEPTH) ? tooDeepPlaceholder() : event.data,
    });
    bodyClaim = undefined;
    if (recorded === "replayed") {
      // A replay: the 2xx a provider expects, and nothing written.
      outcome.duplicates = events.length;
      return outcome;
    }
    if (recorded === "unrouted") {
      outcome.unrouted++;
      continue;
    }
    if (!recorded.created) outcome.duplicates++;
    else {
      outcome.recorded++;
      if (recorded.deliveryId) outcome.forwarded++;
      // Recorded first, so the provider's own event is kept (and forwarded when listed), then the connection goes.
      if (deps.disconnect && def.declaration.installation?.disconnectOn.includes(event.trigger)) {
        await deps.disconnect(deploymentId, def.name, recorded.account);
      }
    }
  }
  return outcome;
}

/** A provider that could not be read: answer non-2xx so the push is redelivered later. */
export class UpstreamUnavailableError extends Error {}

/**
 * A notification-only push (Gmail): the connection's change reader reads what changed since its
 * position with the account's token, the events are stored, then the position moves. It moves only
 * after the events are stored, so a crash in between re-reads (and deduplicates) rather than skips.
 */
async function acceptSync(deps: InboundDeps, deploymentId: string, def: ConnectorDefinition, sync: SyncNotification): Promise<InboundOutcome> {
  const accounts = await findAccounts(deps, deploymentId, def.name, sync.externalIds);
  const account = route(accounts, sync.externalIds);
  if (!account || !connectionChangeReader(def.declaration)) return { ...emptyOutcome(), unrouted: 1 };
  return readChanges(deps, deploymentId, def, account, sync);
}

/**
 * Polling, for accounts whose provider does not push to us (Gmail without Pub/Sub): the same read
 * as a push triggers, from the stored position to whatever is new.
 */
async function pollAccount(deps: InboundDeps, deploymentId: string, def: ConnectorDefinition, account: Account): Promise<InboundOutcome> {
  return readChanges(deps, deploymentId, def, account, undefined);
}

async function readChanges(
  deps: InboundDeps,
  deploymentId: string,
  def: ConnectorDefinition,
  account: Account,
  notification: SyncNotification | undefined,
): Promise<InboundOutcome> {
  const fetched = await fetchSince(deps, def, account, notification);
  if (!fetched) return emptyOutcome();
  const outcome = await acceptEvents(
    deps,
    deploymentId,
    def,
    fetched.events,
    { connection: { reader: account.id, account } },
  );
  if (fetched.cursor !== undefined && fetched.cursor !== account.cursor) {
    await movePosition(deps.sql, account.id, CONNECTION_READER, fetched.cursor);
  }
  return outcome;
}

async function fetchSince(deps: InboundDeps, def: ConnectorDefinition, account: Account, notification: SyncNotification | undefined) {
  const { apiUrl } = resolveEndpoints(def, deps.connectorEnv);
  let accessToken: string;
  try {
    accessToken = await deps.accessTokens.fresh(account.id);
  } catch (error) {
    // A person must reconnect the account; redelivering the push will not help.
    if (error instanceof ReauthRequiredError) return undefined;
    throw new UpstreamUnavailableError(`could not get a token for the account: ${(error as Error).message}`);
  }
  try {
    return await connectionChangeReader(def.declaration)!.read({
      fetchJson: bearerFetchJson(apiUrl, accessToken),
      externalId: account.externalId,
      resource: "",
      cursor: account.cursor ?? undefined,
      headers: {},
      item: {},
      ...(notification ? { notification } : {}),
      providerId: "",
      triggersFor: (providerEvent) => def.triggers.filter((t) => t.providerEvent === providerEvent).map((t) => t.name),
      now: deps.clock.now(),
    });
  } catch (error) {
    throw new UpstreamUnavailableError(`could not read the provider's changes: ${(error as Error).message}`);
  }
}

/** Verified inbound events → stored events and deliveries: the webhook route's and the poller's. */
export function createInboundEvents(deps: InboundDeps) {
  return {
    acceptEvents: (deploymentId: string, def: ConnectorDefinition, events: NormalizedEvent[], origin: EventOrigin) =>
      acceptEvents(deps, deploymentId, def, events, origin),
    acceptSync: (deploymentId: string, def: ConnectorDefinition, sync: SyncNotification) => acceptSync(deps, deploymentId, def, sync),
    pollAccount: (deploymentId: string, def: ConnectorDefinition, account: Account) => pollAccount(deps, deploymentId, def, account),
  };
}

export type InboundEvents = ReturnType<typeof createInboundEvents>;
