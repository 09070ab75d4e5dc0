import { findDeploymentWithRole } from "../deployments/findDeployment.ts";
import type { Deployment, Role } from "../generated/prisma/client.ts";
import type { Sql } from "../db/sql.ts";
import { forbidden, notFound } from "../errors.ts";
import type { Principal } from "./principal.ts";
import type { Revocations } from "./revocations.ts";

/**
 * What a principal may do, asked once per resource per request (GraphQL resolvers ask often).
 * An API key acts as an administrator of its own deployment and of nothing else.
 *
 * Each question is one prepared statement (no Prisma: a console page asks on every request), and
 * its answers are remembered across requests by the app's AccessCache (below).
 */
export type Access = ReturnType<typeof createAccess>;

const rank: Record<Role, number> = { MEMBER: 1, ADMIN: 2, OWNER: 3 };

/** How long a member's role is remembered: the bound within which a removal made on another instance applies. */
export const ROLE_CACHE_TTL_MS = 2_000;
const MAX_CACHED = 10_000;

/** A deployment's row as GraphQL serves it: only columns that never change after creation. */
export type DeploymentRow = Omit<Deployment, "dataItemCount">;

/**
 * What access checks remember across requests, per app:
 * - deployments' rows by id, for as long as the process runs. Exact, not a guess: the columns kept
 *   (id, organization, name, creation time) never change after creation and deployments are never
 *   deleted; the item counter, which does change, is not kept (the data page reads it itself).
 * - members' roles for ROLE_CACHE_TTL_MS. Roles never change in place; a membership only ends
 *   (removeMember), which is announced on this instance and drops the role at once. Another
 *   instance may accept a removed member for ≤ 2 s, the same bound as ended sessions
 *   (docs/security.md). Non-members are never remembered: an added member gets in at once.
 * So a console request for a deployment it has seen makes no access query at all.
 */
export function createAccessCache(revocations: Revocations) {
  const deployments = new Map<string, DeploymentRow>();
  const roles = new Map<string, { role: Role; until: number }>();
  const roleKey = (userId: string, organizationId: string) => `${userId} ${organizationId}`;
  let removals = 0;
  revocations.watch((revocation) => {
    if (revocation.kind !== "membership") return;
    removals++;
    roles.delete(roleKey(revocation.userId, revocation.organizationId));
  });
  const bounded = <V>(map: Map<string, V>, key: string, value: V) => {
    if (map.size >= MAX_CACHED) map.delete(map.keys().next().value as string);
    map.set(key, value);
  };
  return {
    // Each request gets its own copy: resolvers and plugins may attach things to a parent object.
    deployment(id: string): DeploymentRow | undefined {
      const row = deployments.get(id);
      return row && { ...row };
    },
    rememberDeployment({ dataItemCount: _changes, ...row }: Deployment): DeploymentRow {
      bounded(deployments, row.id, row);
      return { ...row };
    },
    role(userId: string, organizationId: string): Role | undefined {
      const cached = roles.get(roleKey(userId, organizationId));
      if (cached && cached.until > Date.now()) return cached.role;
      return undefined;
    },
    /** Read before a role query: a role read while a removal was announced is not remembered. */
    get epoch() {
      return removals;
    },
    rememberRole(userId: string, organizationId: string, role: Role | undefined, epoch: number) {
      if (role && epoch === removals) bounded(roles, roleKey(userId, organizationId), { role, until: Date.now() + ROLE_CACHE_TTL_MS });
    },
  };
}
export type AccessCache = ReturnType<typeof createAccessCache>;

/** What the guard says when it refuses: `<what> was not found.` / `Only owners and admins can <action>.` */
export interface Refusal {
  what: string;
  action: string;
}

export function createAccess(sql: Sql, cache: AccessCache, principal: Principal | undefined) {
  const orgRoles = new Map<string, Promise<Role | undefined>>();
  const deployments = new Map<string, Promise<{ deployment: DeploymentRow; role: Role | undefined } | null>>();

  const organizationRole = (organizationId: string): Promise<Role | undefined> => {
    if (principal?.kind !== "user") return Promise.resolve(undefined);
    let role = orgRoles.get(organizationId);
    if (!role) {
      const cached = cache.role(principal.userId, organizationId);
      const epoch = cache.epoch;
      role = cached
        ? Promise.resolve(cached)
        : sql
            .query<{ role: Role }>("select role from membership where organization_id = $1 and user_id = $2", [organizationId, principal.userId], "organization_role")
            .then((rows) => {
              cache.rememberRole(principal.userId, organizationId, rows[0]?.role, epoch);
              return rows[0]?.role;
            });
      orgRoles.set(organizationId, role);
    }
    return role;
  };

  const readDeploymentWithRole = async (deploymentId: string, userId: string) => {
    const known = cache.deployment(deploymentId);
    const cachedRole = known && cache.role(userId, known.organizationId);
    if (known && cachedRole) return { deployment: known, role: cachedRole };
    const epoch = cache.epoch;
    const found = await findDeploymentWithRole(sql, deploymentId, userId);
    if (!found) return null;
    const deployment = cache.rememberDeployment(found.deployment);
    cache.rememberRole(userId, deployment.organizationId, found.role, epoch);
    return { deployment, role: found.role };
  };

  const deploymentRole = (deploymentId: string): Promise<Role | undefined> => {
    if (!principal) return Promise.resolve(undefined);
    if (principal.kind === "apiKey") return Promise.resolve(principal.deploymentId === deploymentId ? "ADMIN" : undefined);
    let found = deployments.get(deploymentId);
    if (!found) {
      found = readDeploymentWithRole(deploymentId, principal.userId);
      deployments.set(deploymentId, found);
    }
    return found.then((result) => result?.role);
  };

  /**
   * The deployment's row when this request's access check already read it (a user asked about
   * it), so a resolver need not read it again; undefined otherwise.
   */
  const checkedDeployment = async (deploymentId: string): Promise<DeploymentRow | null | undefined> => {
    const found = deployments.get(deploymentId);
    return found ? ((await found)?.deployment ?? null) : undefined;
  };

  const atLeast = (role: Role | undefined, needed: Role) => role !== undefined && rank[role] >= rank[needed];

  /**
   * The one guard before acting on something that belongs to a deployment (or organization), as
   * loaded (null/undefined: nothing was found). NOT_FOUND `<what> was not found.` when there is
   * nothing or the caller cannot see it (an outsider never learns that it exists), FORBIDDEN
   * `Only owners and admins can <action>.` when the caller sees it but its role is too low.
   * Returns the record, checked.
   */
  const guarded = async (id: string | undefined, roleOf: (id: string) => Promise<Role | undefined>, needed: Role, refusal: Refusal) => {
    const role = id ? await roleOf(id) : undefined;
    if (!atLeast(role, "MEMBER")) throw notFound(refusal.what);
    if (!atLeast(role, needed)) throw forbidden(`Only owners and admins can ${refusal.action}.`);
  };
  const deployment = async <T extends { deploymentId: string }>(record: T | null | undefined, needed: Role, refusal: Refusal): Promise<T> => {
    await guarded(record?.deploymentId, deploymentRole, needed, refusal);
    return record!;
  };
  const organization = async <T extends { organizationId: string }>(record: T | null | undefined, needed: Role, refusal: Refusal): Promise<T> => {
    await guarded(record?.organizationId, organizationRole, needed, refusal);
    return record!;
  };

  return {
    principal,
    organizationRole,
    deploymentRole,
    checkedDeployment,
    deployment,
    organization,
    canReadOrganization: async (id: string) => atLeast(await organizationRole(id), "MEMBER"),
    canManageOrganization: async (id: string) => atLeast(await organizationRole(id), "ADMIN"),
    canReadDeployment: async (id: string) => atLeast(await deploymentRole(id), "MEMBER"),
    canManageDeployment: async (id: string) => atLeast(await deploymentRole(id), "ADMIN"),
  };
}
