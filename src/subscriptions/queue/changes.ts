import type { Sql } from "../../db/sql.ts";

/**
 * What to plan again (`subscription_plan_change`, written by database triggers in the writers'
 * own transactions: a connection inserted or its status/params changed, a resource added or
 * deleted, a trigger listed or unlisted). Read, planned, then forgotten: an instance that stops in
 * between leaves the rows for the next pass (planning twice changes nothing).
 */
export interface PlanChange {
  id: string;
  connectedAccountId: string | null;
  deploymentId: string | null;
  connector: string | null;
}

export async function pendingChanges(sql: Sql, limit: number): Promise<PlanChange[]> {
  const rows = await sql.query<{ id: string; connected_account_id: string | null; deployment_id: string | null; connector: string | null }>(
    `select id::text as id, connected_account_id, deployment_id, connector from subscription_plan_change order by id limit $1`,
    [limit],
    "subscriptions_pending_changes",
  );
  return rows.map((r) => ({ id: r.id, connectedAccountId: r.connected_account_id, deploymentId: r.deployment_id, connector: r.connector }));
}

/** The connections the changes name: their own, and every connection of a (deployment, connector) whose list changed. */
export async function accountsChanged(sql: Sql, changes: PlanChange[]): Promise<string[]> {
  const ids = new Set(changes.flatMap((c) => (c.connectedAccountId ? [c.connectedAccountId] : [])));
  const lists = changes.filter((c) => c.deploymentId && c.connector);
  if (lists.length > 0) {
    const rows = await sql.query<{ id: string }>(
      `select a.id from connected_account a
       join unnest($1::text[], $2::text[]) as l(deployment_id, connector) on a.deployment_id = l.deployment_id and a.connector = l.connector`,
      [lists.map((c) => c.deploymentId), lists.map((c) => c.connector)],
    );
    for (const row of rows) ids.add(row.id);
  }
  return [...ids];
}

/** Forgets the changes read (by id: one committed meanwhile with a smaller id is still planned). */
export async function forgetChanges(sql: Sql, ids: string[]): Promise<void> {
  await sql.query(`delete from subscription_plan_change where id = any($1::bigint[])`, [ids], "subscriptions_forget_changes");
}

/** Forgets every change up to one read before a full plan began. */
export async function forgetChangesUpTo(sql: Sql, upToId: string): Promise<void> {
  await sql.query(`delete from subscription_plan_change where id <= $1::bigint`, [upToId]);
}

/** The newest change now ("0" when none): a full plan forgets what it already covers. */
export async function lastChange(sql: Sql): Promise<string> {
  const rows = await sql.query<{ id: string | null }>(`select max(id)::text as id from subscription_plan_change`);
  return rows[0]?.id ?? "0";
}

/** One keyset page of every connection's id (a full plan, at start-up). */
export async function accountsAfter(sql: Sql, afterId: string, limit: number): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(`select id from connected_account where id > $1 order by id limit $2`, [afterId, limit]);
  return rows.map((r) => r.id);
}
