import type { Sql } from "../../db/sql.ts";

/**
 * release (shutdown ran out of time): the given in-flight PENDING deliveries lose their lease, so
 * another instance claims them at once rather than after it (at-least-once: one may already have
 * been sent).
 */
export async function release(sql: Sql, ids: readonly string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await sql.query(`update delivery set locked_until = null, updated_at = $2::timestamp where id = any($1::text[]) and status = 'PENDING'`, [ids, now.toISOString()]);
}
