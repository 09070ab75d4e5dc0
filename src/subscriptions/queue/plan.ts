import type { Sql } from "../../db/sql.ts";

/** One (connector, trigger) → (resource, provider event) pair of the declarations in force. */
export interface WantedEvent {
  connector: string;
  trigger: string;
  /** The declared resource: `{name}`s in it are the connection's (or its watched resource's) params, filled here. */
  resource: string;
  event: string;
  /** The resource param a subscription needs ("" for none): without it the connection is not subscribed. */
  param?: string;
}

/** A connector's resource parameters (its `in: "path"` params): which a watched resource names, and which are optional. */
export type ResourceParams = Record<string, { name: string; optional: boolean; default?: string }[]>;

interface Account {
  id: string;
  deployment_id: string;
  connector: string;
  status: string;
  params: unknown;
}
interface Live {
  id: string;
  connected_account_id: string;
  watched_resource_id: string | null;
  resource: string;
  events: string[];
}
interface Wanted {
  accountId: string;
  deploymentId: string;
  connector: string;
  watchedResourceId: string | null;
  resourceParams: Record<string, string> | null;
  resource: string;
  events: string[];
}

const asObject = (value: unknown): Record<string, unknown> =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const strings = (value: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(asObject(value)).filter((e): e is [string, string] => typeof e[1] === "string"));
const key = (accountId: string, watchedResourceId: string | null, resource: string) => `${accountId}\u0000${watchedResourceId ?? ""}\u0000${resource}`;

/**
 * What `accounts` want, from their rows only: per ACTIVE connection, per watched resource (or, with
 * none, once for the whole account where its connector's resources are optional or it has none;
 * nothing where a resource is required: `watching: NONE`), per listed trigger, the declared
 * resource filled with the resource's params then the connection's.
 */
function wantedOf(accounts: Account[], resources: { id: string; connected_account_id: string; params: unknown }[], listed: Set<string>, wanted: WantedEvent[], resourceParams: ResourceParams): Wanted[] {
  const byConnector = new Map<string, WantedEvent[]>();
  for (const w of wanted) byConnector.set(w.connector, [...(byConnector.get(w.connector) ?? []), w]);
  const resourcesOf = new Map<string, { id: string; params: Record<string, string> }[]>();
  for (const r of resources) resourcesOf.set(r.connected_account_id, [...(resourcesOf.get(r.connected_account_id) ?? []), { id: r.id, params: strings(r.params) }]);
  const out = new Map<string, Wanted>();
  for (const account of accounts) {
    const entries = (byConnector.get(account.connector) ?? []).filter((w) => listed.has(`${account.deployment_id}\u0000${w.connector}\u0000${w.trigger}`));
    if (account.status !== "ACTIVE" || entries.length === 0) continue;
    const declared = resourceParams[account.connector] ?? [];
    const names = new Set(declared.map((p) => p.name));
    // The connection's own params without resource ones: those come from a watched resource only.
    const tenant = Object.fromEntries(Object.entries(strings(account.params)).filter(([name]) => !names.has(name)));
    const own = resourcesOf.get(account.id) ?? [];
    const contexts: { id: string | null; params: Record<string, string> }[] =
      own.length > 0 ? own : declared.some((p) => !p.optional) ? [] : [{ id: null, params: Object.fromEntries(declared.flatMap((p) => (p.default ? [[p.name, p.default]] : []))) }];
    for (const context of contexts) {
      for (const entry of entries) {
        if (entry.param && context.params[entry.param] === undefined) continue;
        let missing = false;
        const resource = entry.resource.replace(/\{([a-z][a-z0-9_]*)\}/g, (_, name: string) => {
          const value = context.params[name] ?? tenant[name];
          if (value === undefined && names.has(name)) missing = true;
          return value ?? "";
        });
        if (missing) continue;
        const k = key(account.id, context.id, resource);
        const row = out.get(k) ?? { accountId: account.id, deploymentId: account.deployment_id, connector: account.connector, watchedResourceId: context.id, resourceParams: context.id ? context.params : null, resource, events: [] };
        if (!row.events.includes(entry.event)) row.events.push(entry.event);
        out.set(k, row);
      }
    }
  }
  for (const row of out.values()) row.events.sort();
  return [...out.values()];
}

/**
 * plan: the rows `accountIds` want (wantedOf above) against their live rows.
 *   —                         → PENDING, due now        (a wanted (account, resource) without a live row)
 *   live, other events wanted → PENDING, due now        (its provider subscription no longer matches: re-created)
 *   live, no longer wanted    → events '{}', due now    (deleted at the provider by the manager: a
 *                                                        resource deleted, a trigger unlisted, a disconnect)
 * Only the accounts named are read: the manager plans from what changed (changes.ts), never the
 * whole table each pass. Two instances planning at once insert one row: the partial unique index
 * (one live row per account, watched resource and resource) turns the second insert into nothing.
 */
export async function plan(sql: Sql, wanted: WantedEvent[], resourceParams: ResourceParams, accountIds: string[], now: Date): Promise<{ created: number; changed: number; unwanted: number }> {
  if (accountIds.length === 0) return { created: 0, changed: 0, unwanted: 0 };
  const [accounts, resources, live] = await Promise.all([
    sql.query<Account>(`select id, deployment_id, connector, status::text as status, params from connected_account where id = any($1::text[])`, [accountIds], "subscriptions_plan_accounts"),
    sql.query<{ id: string; connected_account_id: string; params: unknown }>(
      `select id, connected_account_id, params from watched_resource where connected_account_id = any($1::text[]) order by created_at, id`,
      [accountIds],
      "subscriptions_plan_resources",
    ),
    sql.query<Live>(
      `select id, connected_account_id, watched_resource_id, resource, events from provider_subscription where connected_account_id = any($1::text[]) and status <> 'DELETED'`,
      [accountIds],
      "subscriptions_plan_live",
    ),
  ]);
  const deployments = [...new Set(accounts.map((a) => a.deployment_id))];
  const listedRows = deployments.length
    ? await sql.query<{ deployment_id: string; connector: string; trigger: string }>(
        `select deployment_id, connector, trigger from forwarding_trigger where deployment_id = any($1::text[])`,
        [deployments],
        "subscriptions_plan_listed",
      )
    : [];
  const listed = new Set(listedRows.map((t) => `${t.deployment_id}\u0000${t.connector}\u0000${t.trigger}`));
  const want = wantedOf(accounts, resources, listed, wanted, resourceParams);
  const liveByKey = new Map(live.map((row) => [key(row.connected_account_id, row.watched_resource_id, row.resource), row]));
  const wantedKeys = new Set(want.map((w) => key(w.accountId, w.watchedResourceId, w.resource)));
  const toCreate = want.filter((w) => !liveByKey.has(key(w.accountId, w.watchedResourceId, w.resource)));
  const toChange = want.flatMap((w) => {
    const row = liveByKey.get(key(w.accountId, w.watchedResourceId, w.resource));
    return row && (row.events ?? []).join("\u0000") !== w.events.join("\u0000") ? [{ id: row.id, events: w.events }] : [];
  });
  const toDrop = live.filter((row) => (row.events ?? []).length > 0 && !wantedKeys.has(key(row.connected_account_id, row.watched_resource_id, row.resource))).map((row) => row.id);
  const at = now.toISOString();
  let created = 0;
  if (toCreate.length > 0) {
    const rows = await sql.query<{ id: string }>(
      `insert into provider_subscription (id, deployment_id, connected_account_id, connector, resource, events, watched_resource_id, resource_params, status, next_attempt_at, updated_at)
       select 'psub_' || substr(md5(random()::text || clock_timestamp()::text || w.account_id || w.resource || coalesce(w.watched_resource_id, '')), 1, 24),
              w.deployment_id, w.account_id, w.connector, w.resource, array(select jsonb_array_elements_text(w.events::jsonb)), w.watched_resource_id, w.resource_params::jsonb, 'PENDING', $8::timestamp, $8::timestamp
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) as w(account_id, deployment_id, connector, resource, events, watched_resource_id, resource_params)
       on conflict do nothing
       returning id`,
      [
        toCreate.map((w) => w.accountId),
        toCreate.map((w) => w.deploymentId),
        toCreate.map((w) => w.connector),
        toCreate.map((w) => w.resource),
        toCreate.map((w) => JSON.stringify(w.events)),
        toCreate.map((w) => w.watchedResourceId),
        toCreate.map((w) => (w.resourceParams ? JSON.stringify(w.resourceParams) : null)),
        at,
      ],
    );
    created = rows.length;
  }
  if (toChange.length > 0) {
    await sql.query(
      `update provider_subscription s set events = array(select jsonb_array_elements_text(c.events::jsonb)), status = 'PENDING', next_attempt_at = $3::timestamp, updated_at = $3::timestamp
       from unnest($1::text[], $2::text[]) as c(id, events) where s.id = c.id and s.status <> 'DELETED'`,
      [toChange.map((c) => c.id), toChange.map((c) => JSON.stringify(c.events)), at],
    );
  }
  if (toDrop.length > 0) {
    await sql.query(
      `update provider_subscription set events = '{}', next_attempt_at = $2::timestamp, updated_at = $2::timestamp where id = any($1::text[]) and status <> 'DELETED' and events <> '{}'`,
      [toDrop, at],
    );
  }
  return { created, changed: toChange.length, unwanted: toDrop.length };
}
