import type { Sql } from "../../db/sql.ts";

/**
 * pollNudge: a notification said these accounts changed (Dropbox), so their connections are due now,
 * whatever their schedule. A connection read at this moment (in flight) gets the new time too, and
 * `pollRecord` keeps it (a time after the claim is a nudge), so a change announced during a read is
 * read again right after it. One not polled (no listed trigger) is unscheduled again when claimed.
 * Rows already due and not in flight are left alone. Returns how many ACTIVE connections of the
 * deployment the external ids name.
 */
export async function pollNudge(sql: Sql, deploymentId: string, connector: string, externalIds: string[], now: Date): Promise<number> {
  if (externalIds.length === 0) return 0;
  const rows = await sql.query<{ matched: number | string }>(
    `with matched as (
       select id, (next_poll_at is null or next_poll_at > $4::timestamp or poll_lease_until >= $4::timestamp) as move
       from connected_account
       where deployment_id = $1 and connector = $2 and status = 'ACTIVE' and external_id = any($3::text[])
     ),
     moved as (
       update connected_account a set next_poll_at = $4::timestamp
       from matched m
       where a.id = m.id and m.move
       returning 1
     )
     select (select count(*) from matched) as matched, (select count(*) from moved) as moved`,
    [deploymentId, connector, [...new Set(externalIds)], now.toISOString()],
    "poll_nudge",
  );
  return Number(rows[0]?.matched ?? 0);
}
