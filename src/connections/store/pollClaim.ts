import { CONNECTION_READER } from "../../changes/positions.ts";
import type { Sql } from "../../db/sql.ts";
import type { PolledPairs } from "./pollFragments.ts";
import { POLLED } from "./pollFragments.ts";

/** A connection claimed for one poll, until `leaseUntil`. */
export interface ClaimedConnection {
  id: string;
  deploymentId: string;
  connector: string;
  account: string;
  externalId: string;
  /** Its own change reader's position (change_position, ../../changes/positions.ts): a code reader's, or the declared readers' by trigger. */
  cursor: string | null;
  /** Its connection params and identity metadata: what fills a per-tenant API base. */
  params: unknown;
  metadata: unknown;
  createdAt: Date;
  /** The polled triggers its deployment lists now: what this poll reads. */
  triggers: string[];
  /** When it was claimed: a next poll time set after this is a nudge (pollRecord.ts keeps it). */
  claimedAt: Date;
  leaseUntil: Date;
}

export interface Claim {
  /** To poll now. */
  claimed: ClaimedConnection[];
  /** Due rows no longer polled, unscheduled by this claim. */
  unscheduled: number;
}

/**
 * pollClaim: due → in flight (a lease, `poll_lease_until`), or due → unscheduled when the connection is
 * no longer polled (not ACTIVE, or no polled trigger listed any more: cleared here, when it comes
 * due, so no statement ever has to read every scheduled row). Up to `limit` due rows, oldest due
 * first; `FOR UPDATE SKIP LOCKED` and the lease let any number of instances share the schedule
 * without waiting on each other or ever polling one connection twice at once. A lease that ran
 * out (a crashed instance) makes the row due again by itself. One indexed range scan on
 * next_poll_at: when nothing is due, it reads nothing.
 */
export async function pollClaim(sql: Sql, pairs: PolledPairs, now: Date, leaseMs: number, limit: number): Promise<Claim> {
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const rows = await sql.query<{
    polled: boolean;
    id: string;
    deployment_id: string;
    connector: string;
    account: string;
    external_id: string;
    cursor: string | null;
    params: unknown;
    metadata: unknown;
    created_at: Date | string;
    triggers: string[] | null;
  }>(
    `with due as (
       select a.id, ${POLLED("$4", "$5")} as polled
       from connected_account a
       where a.next_poll_at <= $1::timestamp and (a.poll_lease_until is null or a.poll_lease_until < $1::timestamp)
       order by a.next_poll_at
       limit $3
       for update of a skip locked
     )
     update connected_account a set
       poll_lease_until = case when due.polled then $2::timestamp end,
       next_poll_at = case when due.polled then a.next_poll_at end
     from due
     where a.id = due.id
     returning due.polled, a.id, a.deployment_id, a.connector, a.account, a.external_id,
       (select p.cursor from change_position p where p.connected_account_id = a.id and p.reader = $6) as cursor, a.params, a.metadata, a.created_at at time zone 'UTC' as created_at,
       array(select t.trigger from forwarding_trigger t
             join unnest($4::text[], $5::text[]) as p(connector, trigger) on p.connector = t.connector and p.trigger = t.trigger
             where t.deployment_id = a.deployment_id and t.connector = a.connector order by t.trigger) as triggers`,
    [now.toISOString(), leaseUntil.toISOString(), limit, pairs.connectors, pairs.triggers, CONNECTION_READER],
    "poll_claim",
  );
  const claimed = rows
    .filter((row) => row.polled)
    .map((row) => ({
      id: row.id,
      deploymentId: row.deployment_id,
      connector: row.connector,
      account: row.account,
      externalId: row.external_id,
      cursor: row.cursor,
      params: row.params,
      metadata: row.metadata,
      createdAt: new Date(row.created_at),
      triggers: row.triggers ?? [],
      claimedAt: now,
      leaseUntil,
    }));
  return { claimed, unscheduled: rows.length - claimed.length };
}
