import type { Sql } from "../../db/sql.ts";
import type { PolledPairs } from "./pollFragments.ts";
import { POLLED } from "./pollFragments.ts";

/**
 * pollSchedule: unscheduled → scheduled. Every ACTIVE connection with a listed polled trigger and no
 * next_poll_at gets one at a random point within its interval from `now`, so connections made or
 * listed together are read spread over the interval rather than all at once. Reads only rows
 * without a schedule (the next_poll_at index holds nulls too): the scheduled ones cost nothing here.
 * Returns how many were scheduled.
 */
export async function pollSchedule(sql: Sql, pairs: PolledPairs, now: Date): Promise<number> {
  if (pairs.connectors.length === 0) return 0;
  const rows = await sql.query<{ scheduled: number | string }>(
    `with s as (
       update connected_account a
       set next_poll_at = $1::timestamp + random() * i.interval_ms * interval '1 millisecond'
       from (select connector, max(interval_ms) as interval_ms from unnest($2::text[], $4::int[]) as x(connector, interval_ms) group by connector) i
       where a.next_poll_at is null and a.connector = i.connector and ${POLLED("$2", "$3")}
       returning 1
     )
     select count(*) as scheduled from s`,
    [now.toISOString(), pairs.connectors, pairs.triggers, pairs.intervalsMs],
    "poll_schedule",
  );
  return Number(rows[0]?.scheduled ?? 0);
}
