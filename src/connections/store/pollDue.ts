import type { Sql } from "../../db/sql.ts";

/** How many connections are due (or overdue) now, in flight or not: the gauge's reading. An index range scan, no row moved. */
export async function pollDue(sql: Sql, now: Date): Promise<number> {
  const rows = await sql.query<{ due: number | string }>(
    `select count(*) as due from connected_account where next_poll_at <= $1::timestamp`,
    [now.toISOString()],
    "poll_count_due",
  );
  return Number(rows[0]?.due ?? 0);
}
