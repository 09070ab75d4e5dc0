/**
 * The Connection object: a connected account as the operator's server sees it over REST, in
 * lifecycle events (`switchyard.connection_*`) and, field for field, in GraphQL's ConnectedAccount.
 * Built from rows only, so it can never carry a token: the row type below has no token columns.
 */

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
} as const;

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

export function toConnection(row: ConnectionRow, subscriptions: readonly SubscriptionRow[] = []): Connection {
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
  };
}
