/**
 * The Connection object: a connected account as the operator's server sees it over REST, in
 * lifecycle events (`switchyard.connection_*`) and, field for field, in GraphQL's ConnectedAccount.
 * Built from rows only, so it can never carry a token: the row type below has no token columns.
 */

import { resourceParamsOf, type Watching, watchingOf } from "../connectors/params.ts";
import { findConnector } from "../connectors/registry.ts";

/**
 * The connected_account columns a Connection shows (never the token columns), and its lastEventAt,
 * which is derived from its newest event (lastEventAt.ts), not a column.
 */
export interface ConnectionRow {
  id: string;
  connector: string;
  account: string;
  externalId: string;
  displayName: string | null;
  status: "ACTIVE" | "REAUTH_REQUIRED" | "DISCONNECTED";
  scopes: string[];
  params: unknown;
  metadata: unknown;
  createdAt: Date;
  lastRefreshedAt: Date | null;
  lastEventAt: Date | null;
}

/** The provider_subscription columns a Connection shows (never the sealed secret or the cursor). */
export interface SubscriptionRow {
  id: string;
  resource: string;
  events: string[];
  status: "PENDING" | "ACTIVE" | "FAILED" | "DELETED";
  providerId: string | null;
  expiresAt: Date | null;
  lastRenewedAt: Date | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  /** The watched resource it is for; null: account-wide. */
  watchedResourceId: string | null;
}

/** The watched_resource columns a Connection shows. */
export interface WatchedResourceRow {
  id: string;
  params: unknown;
  createdAt: Date;
}

/** A resource the connection watches, with its provider subscription (§13 `Resource`). */
export interface ResourceView {
  id: string;
  params: Record<string, string>;
  subscription: ProviderSubscriptionView | null;
  createdAt: string;
}

export interface ProviderSubscriptionView {
  id: string;
  resource: string;
  events: string[];
  status: SubscriptionRow["status"];
  providerId: string | null;
  expiresAt: string | null;
  lastRenewedAt: string | null;
  lastError: string | null;
  nextAttemptAt: string | null;
}

/**
 * How a connection's polls have gone lately (read from the poller's table by src/polling/health.ts):
 * null when nothing of it is polled.
 */
export interface PollingHealthView {
  lastPolledAt: string | null;
  lastSucceededAt: string | null;
  lastError: string | null;
  consecutiveFailures: number;
}

/** Reads the polling health of connections by id (injected: the poller's table is not this folder's). */
export type ReadPollingHealth = (connectionIds: readonly string[]) => Promise<Map<string, PollingHealthView | null>>;

export interface Connection {
  id: string;
  connector: string;
  account: string;
  externalId: string;
  displayName: string | null;
  status: ConnectionRow["status"];
  scopes: string[];
  params: Record<string, string>;
  metadata: Record<string, unknown>;
  createdAt: string;
  lastRefreshedAt: string | null;
  lastEventAt: string | null;
  subscriptions: ProviderSubscriptionView[];
  /** Polling health; null when nothing of the connection is polled. */
  polling: PollingHealthView | null;
  resources: ResourceView[];
  watching: Watching;
}

/** Prisma `select` for a ConnectionRow. */
export const connectionSelect = {
  id: true,
  connector: true,
  account: true,
  externalId: true,
  displayName: true,
  status: true,
  scopes: true,
  params: true,
  metadata: true,
  createdAt: true,
  lastRefreshedAt: true,
} as const;

/** Prisma `select` for a SubscriptionRow. */
export const subscriptionSelect = {
  id: true,
  resource: true,
  events: true,
  status: true,
  providerId: true,
  expiresAt: true,
  lastRenewedAt: true,
  lastError: true,
  nextAttemptAt: true,
  watchedResourceId: true,
} as const;

/** Prisma `select` for a WatchedResourceRow. */
export const watchedResourceSelect = { id: true, params: true, createdAt: true } as const;

const iso = (date: Date | null) => (date ? date.toISOString() : null);
/** The metadata column as an object ({} when unset). */
export const metadataOf = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** The params column as name → string value. */
export const paramsOf = (value: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(metadataOf(value)).map(([name, param]) => [name, String(param)]));

export function toSubscriptionView(row: SubscriptionRow): ProviderSubscriptionView {
  return {
    id: row.id,
    resource: row.resource,
    events: row.events,
    status: row.status,
    providerId: row.providerId,
    expiresAt: iso(row.expiresAt),
    lastRenewedAt: iso(row.lastRenewedAt),
    lastError: row.lastError,
    nextAttemptAt: iso(row.nextAttemptAt),
  };
}

/** A resource's subscription when it has several live ones (a monday board: one per event): the one most in need of attention. */
const ATTENTION = { FAILED: 0, PENDING: 1, ACTIVE: 2, DELETED: 3 } as const;

export function toResourceView(row: WatchedResourceRow, subscriptions: readonly SubscriptionRow[]): ResourceView {
  const own = subscriptions.filter((s) => s.watchedResourceId === row.id && s.status !== "DELETED");
  own.sort((a, b) => ATTENTION[a.status] - ATTENTION[b.status]);
  return { id: row.id, params: paramsOf(row.params), subscription: own[0] ? toSubscriptionView(own[0]) : null, createdAt: row.createdAt.toISOString() };
}

/** RESOURCES, NONE or ACCOUNT for a connection of this connector with this many resources. */
export function watchingFor(connector: string, resourceCount: number): Watching {
  const def = findConnector(connector);
  if (!def) return resourceCount > 0 ? "RESOURCES" : "ACCOUNT";
  return watchingOf(def.declaration.params, resourceCount, Boolean(def.declaration.subscription));
}

/** Whether the connector's subscriptions name resources (it takes `params` on POST …/resources). */
export const takesResources = (connector: string): boolean => resourceParamsOf(findConnector(connector)?.declaration.params ?? []).length > 0;

export function toConnection(row: ConnectionRow, subscriptions: readonly SubscriptionRow[] = [], resources: readonly WatchedResourceRow[] = [],
  polling: PollingHealthView | null = null,
): Connection {
  return {
    id: row.id,
    connector: row.connector,
    account: row.account,
    externalId: row.externalId,
    displayName: row.displayName,
    status: row.status,
    scopes: row.scopes,
    params: paramsOf(row.params),
    metadata: metadataOf(row.metadata),
    createdAt: row.createdAt.toISOString(),
    lastRefreshedAt: iso(row.lastRefreshedAt),
    lastEventAt: iso(row.lastEventAt),
    subscriptions: subscriptions.map(toSubscriptionView),
    polling,
    resources: resources.map((resource) => toResourceView(resource, subscriptions)),
    watching: watchingFor(row.connector, resources.length),
  };
}
