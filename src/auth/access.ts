import { findDeploymentWithRole } from "../deployments/findDeployment.ts";
import type { Deployment, Role } from "../generated/prisma/client.ts";
import type { Sql } from "../db/sql.ts";
import type { Principal } from "./principal.ts";

/**
 * What a principal may do, asked once per resource per request (GraphQL resolvers ask often).
 * An API key acts as an administrator of its own deployment and of nothing else.
 *
 * Each question is one prepared statement (no Prisma: a console page asks on every request), and
 * nothing is remembered across requests, so a role change or removal applies to the next request.
 */
export type Access = ReturnType<typeof createAccess>;

const rank: Record<Role, number> = { MEMBER: 1, ADMIN: 2, OWNER: 3 };

export function createAccess(sql: Sql, principal: Principal | undefined) {
  const orgRoles = new Map<string, Promise<Role | undefined>>();
  const deployments = new Map<string, Promise<{ deployment: Deployment; role: Role | undefined } | null>>();

  const organizationRole = (organizationId: string): Promise<Role | undefined> => {
    if (principal?.kind !== "user") return Promise.resolve(undefined);
    let role = orgRoles.get(organizationId);
    if (!role) {
      role = sql
        .query<{ role: Role }>("select role from membership where organization_id = $1 and user_id = $2", [organizationId, principal.userId], "organization_role")
        .then((rows) => rows[0]?.role);
      orgRoles.set(organizationId, role);
    }
    return role;
  };

  const deploymentRole = (deploymentId: string): Promise<Role | undefined> => {
    if (!principal) return Promise.resolve(undefined);
    if (principal.kind === "apiKey") return Promise.resolve(principal.deploymentId === deploymentId ? "ADMIN" : undefined);
    let found = deployments.get(deploymentId);
    if (!found) {
      found = findDeploymentWithRole(sql, deploymentId, principal.userId);
      deployments.set(deploymentId, found);
    }
    return found.then((result) => result?.role);
  };

  /**
   * The deployment's row when this request's access check already read it (a user asked about
   * it), so a resolver need not read it again; undefined otherwise.
   */
  const checkedDeployment = async (deploymentId: string): Promise<Deployment | null | undefined> => {
    const found = deployments.get(deploymentId);
    return found ? ((await found)?.deployment ?? null) : undefined;
  };

  const atLeast = (role: Role | undefined, needed: Role) => role !== undefined && rank[role] >= rank[needed];

  return {
    principal,
    organizationRole,
    deploymentRole,
    checkedDeployment,
    canReadOrganization: async (id: string) => atLeast(await organizationRole(id), "MEMBER"),
    canManageOrganization: async (id: string) => atLeast(await organizationRole(id), "ADMIN"),
    canReadDeployment: async (id: string) => atLeast(await deploymentRole(id), "MEMBER"),
    canManageDeployment: async (id: string) => atLeast(await deploymentRole(id), "ADMIN"),
  };
}
