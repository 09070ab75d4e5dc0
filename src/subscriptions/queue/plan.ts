import type { Sql } from "../../db/sql.ts";

/** One (connector, trigger) → (resource, provider event) pair of the declarations in force. */
export interface WantedEvent {
  connector: string;
  trigger: string;
  /** The declared resource: `{name}`s in it are the connection's params, filled per connection here. */
  resource: string;
  event: string;
  /** The connection param a subscription needs ("" for none): connections without it are not subscribed. */
  param?: string;
}

/**
 * plan: the rows wanted from ACTIVE connections × listed triggers, in one statement.
 *   —                         → PENDING, due now        (a wanted (account, resource) without a live row;
 *                                                        the resource filled from the connection's params)
 *   live, other events wanted → PENDING, due now        (its provider subscription no longer matches: re-created)
 *   live, no longer wanted    → events '{}', due now    (deleted at the provider by the manager)
 * Two instances planning at once insert one row: the partial unique index (one live row per
 * account and resource) turns the second insert into nothing.
 */
export async function plan(sql: Sql, wanted: WantedEvent[], now: Date): Promise<{ created: number; changed: number; unwanted: number }> {
  const rows = await sql.query<{ created: string; changed: string; unwanted: string }>(
    `with map as (
       select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $6::text[]) as m(connector, trigger, resource, event, param)
     ),
     wanted as (
       select a.id as account_id, a.deployment_id, a.connector, r.resource, array_agg(distinct m.event order by m.event) as events
       from forwarding_trigger t
       join map m on m.connector = t.connector and m.trigger = t.trigger
       join connected_account a on a.deployment_id = t.deployment_id and a.connector = t.connector and a.status = 'ACTIVE'
         and (m.param = '' or (a.params ->> m.param) is not null)
       -- 'projects/{project_id}' split on braces: odd parts are text, even parts param names (a missing one fills '').
       cross join lateral (
         select coalesce(string_agg(case when x.i % 2 = 1 then x.part else coalesce(a.params ->> x.part, '') end, '' order by x.i), '') as resource
         from unnest(regexp_split_to_array(m.resource, '[{}]')) with ordinality as x(part, i)
       ) r
       group by a.id, a.deployment_id, a.connector, r.resource
     ),
     created as (
       insert into provider_subscription (id, deployment_id, connected_account_id, connector, resource, events, status, next_attempt_at, updated_at)
       select 'psub_' || substr(md5(random()::text || clock_timestamp()::text || w.account_id || w.resource), 1, 24),
              w.deployment_id, w.account_id, w.connector, w.resource, w.events, 'PENDING', $5::timestamp, $5::timestamp
       from wanted w
       where not exists (select 1 from provider_subscription s where s.connected_account_id = w.account_id and s.resource = w.resource and s.status <> 'DELETED')
       on conflict (connected_account_id, resource) where status <> 'DELETED' do nothing
       returning id
     ),
     changed as (
       update provider_subscription s set events = w.events, status = 'PENDING', next_attempt_at = $5::timestamp, updated_at = $5::timestamp
       from wanted w
       where s.connected_account_id = w.account_id and s.resource = w.resource and s.status <> 'DELETED' and s.events <> w.events
       returning s.id
     ),
     unwanted as (
       update provider_subscription s set events = '{}', next_attempt_at = $5::timestamp, updated_at = $5::timestamp
       where s.status <> 'DELETED' and s.events <> '{}'
         and not exists (select 1 from wanted w where w.account_id = s.connected_account_id and w.resource = s.resource)
       returning s.id
     )
     select (select count(*) from created) as created, (select count(*) from changed) as changed, (select count(*) from unwanted) as unwanted`,
    [wanted.map((w) => w.connector), wanted.map((w) => w.trigger), wanted.map((w) => w.resource), wanted.map((w) => w.event), now.toISOString(), wanted.map((w) => w.param ?? "")],
    "subscriptions_plan",
  );
  const row = rows[0];
  return { created: Number(row?.created ?? 0), changed: Number(row?.changed ?? 0), unwanted: Number(row?.unwanted ?? 0) };
}
