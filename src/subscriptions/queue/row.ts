/** A provider_subscription row as the manager works it, with the account it belongs to. */
export interface SubscriptionWork {
  id: string;
  deploymentId: string;
  connectedAccountId: string;
  connector: string;
  /** What is watched ("" for the whole account). */
  resource: string;
  /** The watched resource it is for (null: account-wide), and its params when planned: they fill `{project_id}` in its calls. */
  watchedResourceId: string | null;
  resourceParams: Record<string, string> | null;
  /** The provider events wanted; empty: no listed trigger needs it any more (to delete). */
  events: string[];
  status: "PENDING" | "ACTIVE" | "FAILED" | "DELETED";
  /** The provider's id of the live subscription; null before the first create succeeded. */
  providerId: string | null;
  providerResourceId: string | null;
  secretSealed: string | null;
  expiresAt: Date | null;
  failures: number;
  accountStatus: "ACTIVE" | "REAUTH_REQUIRED" | "DISCONNECTED";
  account: string;
  externalId: string;
  /** The connection's params and metadata: the declaration's placeholders and the API base are filled from them. */
  params: unknown;
  metadata: unknown;
  /** Its change reader already has a position (the subscription made again): kept, so none is taken anew. */
  positionHeld: boolean;
  /** The lease this claim holds: every recording statement is guarded by it, so a lease taken over is never recorded twice. */
  leaseUntil: Date;
}

export interface RawWork {
  id: string;
  deployment_id: string;
  connected_account_id: string;
  connector: string;
  resource: string;
  watched_resource_id: string | null;
  resource_params: unknown;
  events: string[];
  status: SubscriptionWork["status"];
  provider_id: string | null;
  provider_resource_id: string | null;
  secret_encrypted: string | null;
  expires_at: Date | string | null;
  failures: number;
  account_status: SubscriptionWork["accountStatus"];
  account: string;
  external_id: string;
  params: unknown;
  metadata: unknown;
  position_held: boolean;
}

/** The columns every statement returning work selects (`s` the subscription, `a` its account). */
export const WORK_COLUMNS = `s.id, s.deployment_id, s.connected_account_id, s.connector, s.resource, s.watched_resource_id, s.resource_params, s.events, s.status::text as status,
  s.provider_id, s.provider_resource_id, s.secret_encrypted, s.expires_at at time zone 'UTC' as expires_at, s.failures,
  a.status::text as account_status, a.account, a.external_id, a.params, a.metadata,
  exists (select 1 from change_position c where c.connected_account_id = s.connected_account_id and c.reader = s.id) as position_held`;

export const toWork = (row: RawWork, leaseUntil: Date): SubscriptionWork => ({
  id: row.id,
  deploymentId: row.deployment_id,
  connectedAccountId: row.connected_account_id,
  connector: row.connector,
  resource: row.resource,
  watchedResourceId: row.watched_resource_id,
  resourceParams: row.resource_params as Record<string, string> | null,
  events: row.events ?? [],
  status: row.status,
  providerId: row.provider_id,
  providerResourceId: row.provider_resource_id,
  secretSealed: row.secret_encrypted,
  expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
  failures: Number(row.failures),
  accountStatus: row.account_status,
  account: row.account,
  externalId: row.external_id,
  params: row.params,
  metadata: row.metadata,
  positionHeld: row.position_held === true,
  leaseUntil,
});
