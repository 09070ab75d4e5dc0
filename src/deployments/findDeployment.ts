import type { Sql } from "../db/sql.ts";
import type { Deployment } from "../generated/prisma/client.ts";

/**
 * A deployment's own columns by id, in plain SQL: the same row as `db.deployment.findUnique` without
 * its relations, and without the cost of Prisma's query compiler, which made this lookup most of a
 * GraphQL `deployment(id) { dataItems … }` request's CPU (docs/benchmarks.md). Relations a query
 * selects below it are loaded by the Pothos Prisma plugin's fallback, as for any row missing them.
 */
export async function findDeployment(sql: Sql, id: string): Promise<Deployment | null> {
  const rows = await sql.query<Omit<Deployment, "createdAt"> & { createdAt: Date | string }>(
    // Stored as UTC without a time zone (Prisma's convention): say so, so the driver builds the right Date.
    `select id, organization_id as "organizationId", name, data_item_count as "dataItemCount",
            created_at at time zone 'UTC' as "createdAt"
       from deployment where id = $1`,
    [id],
    "deployment_by_id",
  );
  const row = rows[0];
  return row ? { ...row, createdAt: new Date(row.createdAt) } : null;
}
