import type { Sql } from "../db/sql.ts";
import type { Deployment, Role } from "../generated/prisma/client.ts";

// Stored as UTC without a time zone (Prisma's convention): say so, so the driver builds the right Date.
const DEPLOYMENT_COLUMNS = `d.id, d.organization_id as "organizationId", d.name, d.data_item_count as "dataItemCount",
            d.created_at at time zone 'UTC' as "createdAt"`;
type DeploymentRow = Omit<Deployment, "createdAt"> & { createdAt: Date | string };
const toDeployment = (row: DeploymentRow): Deployment => ({ ...row, createdAt: new Date(row.createdAt) });

/**
 * A deployment's own columns by id, in plain SQL: the same row as `db.deployment.findUnique` without
 * its relations, and without the cost of Prisma's query compiler, which made this lookup most of a
 * GraphQL `deployment(id) { dataItems … }` request's CPU (docs/benchmarks.md). Relations a query
 * selects below it are loaded by the Pothos Prisma plugin's fallback, as for any row missing them.
 */
export async function findDeployment(sql: Sql, id: string): Promise<Deployment | null> {
  const rows = await sql.query<DeploymentRow>(`select ${DEPLOYMENT_COLUMNS} from deployment d where d.id = $1`, [id], "deployment_by_id");
  return rows[0] ? toDeployment(rows[0]) : null;
}

/**
 * A deployment and the user's role in its organization, in one round trip: the access check of a
 * console request (src/auth/access.ts), which then hands the row to `deployment(id)` instead of
 * reading it again. Role undefined: the user is not a member; null: no such deployment.
 */
export async function findDeploymentWithRole(sql: Sql, id: string, userId: string): Promise<{ deployment: Deployment; role: Role | undefined } | null> {
  const rows = await sql.query<DeploymentRow & { role: Role | null }>(
    `select ${DEPLOYMENT_COLUMNS}, m.role
       from deployment d
       left join membership m on m.organization_id = d.organization_id and m.user_id = $2
      where d.id = $1`,
    [id, userId],
    "deployment_with_role",
  );
  const row = rows[0];
  if (!row) return null;
  const { role, ...deployment } = row;
  return { deployment: toDeployment(deployment), role: role ?? undefined };
}
