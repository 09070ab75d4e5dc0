import type { Role } from "../generated/prisma/client.ts";
import type { Db } from "../db/database.ts";
import type { Principal } from "./principal.ts";

/**
 * What a principal may do, asked once per resource per request (GraphQL resolvers ask often).
 * An API key acts as an administrator of its own deployment and of nothing else.
 */
export type Access = ReturnType<typeof createAccess>;

const rank: Record<Role, number> = { MEMBER: 1, ADMIN: 2, OWNER: 3 };

export function createAccess(db: Db, principal: Principal | undefined) {
  const orgRoles = new Map<string, Promise<Role | undefined>>();
  const deploymentOrgs = new Map<string, Promise<string | undefined>>();

  const organizationRole = (organizationId: string): Promise<Role | undefined> => {
    if (principal?.kind !== "user") return Promise.resolve(undefined);
    let role = orgRoles.get(organizationId);
    if (!role) {
      role = db.membership
        .findUnique({ where: { organizationId_userId: { organizationId, userId: principal.userId } }, select: { role: true } })
        .then((membership) => membership?.role);
      orgRoles.set(organizationId, role);
    }
    return role;
  };

  const organizationOf = (deploymentId: string): Promise<string | undefined> => {
    let org = deploymentOrgs.get(deploymentId);
    if (!org) {
      org = db.deployment
        .findUnique({ where: { id: deploymentId }, select: { organizationId: true } })
        .then((deployment) => deployment?.organizationId);
      deploymentOrgs.set(deploymentId, org);
    }
    return org;
  };

  const deploymentRole = async (deploymentId: string): Promise<Role | undefined> => {
    if (!principal) return undefined;
    if (principal.kind === "apiKey") return principal.deploymentId === deploymentId ? "ADMIN" : undefined;
    const organizationId = await organizationOf(deploymentId);
    return organizationId ? organizationRole(organizationId) : undefined;
  };

  const atLeast = (role: Role | undefined, needed: Role) => role !== undefined && rank[role] >= rank[needed];

  return {
    principal,
    organizationRole,
    deploymentRole,
    canReadOrganization: async (id: string) => atLeast(await organizationRole(id), "MEMBER"),
    canManageOrganization: async (id: string) => atLeast(await organizationRole(id), "ADMIN"),
    canReadDeployment: async (id: string) => atLeast(await deploymentRole(id), "MEMBER"),
    canManageDeployment: async (id: string) => atLeast(await deploymentRole(id), "ADMIN"),
  };
}
