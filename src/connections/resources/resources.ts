/**
 * What an operator does with a connection's resources (REST `…/resources`, GraphQL `watchResource`,
 * `unwatchResource`): list, add (idempotent per params), delete. Every operation takes the
 * deployment the caller was authorized for, so another deployment's connection is not found. The
 * provider side follows from the rows (the subscription manager plans from their changes).
 */
import type { Clock } from "../../clock.ts";
import { readResourceParams, resourceParamsOf, storedParams } from "../../connectors/params.ts";
import { findConnector } from "../../connectors/registry.ts";
import type { Db } from "../../db/database.ts";
import { AppError, badInput, connectionNotFound } from "../../errors.ts";
import { type ResourceView, subscriptionSelect, toResourceView } from "../connection.ts";
import type { ConnectionKey } from "../connections.ts";
import type { ResourceStore } from "./index.ts";

export interface ResourcesDeps {
  db: Db;
  store: ResourceStore;
  clock: Clock;
  /** MAX_RESOURCES_PER_CONNECTION. */
  maxPerConnection: number;
  /** This process changed what is watched: the subscription manager plans now rather than at its next pass. */
  changed: () => void;
}

export function createResources(deps: ResourcesDeps) {
  async function connection(deploymentId: string, key: ConnectionKey) {
    const row = await deps.db.connectedAccount.findFirst({
      where: "id" in key ? { deploymentId, id: key.id } : { deploymentId, connector: key.connector, account: key.account },
      select: { id: true, connector: true, status: true },
    });
    if (!row) throw "id" in key ? new AppError("CONNECTION_NOT_FOUND", `There is no connection ${key.id} in this deployment.`) : connectionNotFound(key.connector, key.account);
    return row;
  }

  async function views(connectedAccountId: string, ids?: string[]): Promise<ResourceView[]> {
    const [resources, subscriptions] = await Promise.all([
      deps.store.list([connectedAccountId]),
      deps.db.providerSubscription.findMany({ where: { connectedAccountId, status: { not: "DELETED" }, watchedResourceId: { not: null } }, select: subscriptionSelect, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    ]);
    return resources.filter((r) => !ids || ids.includes(r.id)).map((r) => toResourceView(r, subscriptions));
  }

  async function add(deploymentId: string, key: ConnectionKey, params: unknown): Promise<{ resource: ResourceView; created: boolean }> {
    const found = await connection(deploymentId, key);
    const def = findConnector(found.connector);
    const checked = readResourceParams(def?.declaration.params ?? [], params);
    if (!checked.ok) throw badInput(checked.message, [{ field: checked.name, message: checked.message }]);
    if (found.status === "DISCONNECTED") {
      throw new AppError("CONNECTION_DISCONNECTED", "This connection was deleted: connect the account again (a new auth-url) before it watches anything.");
    }
    const inserted = await deps.store.insert(found.id, checked.values, deps.clock.now(), deps.maxPerConnection);
    if ("limited" in inserted) {
      throw new AppError("LIMIT_EXCEEDED", `This connection watches ${deps.maxPerConnection} resources already, the most one may (MAX_RESOURCES_PER_CONNECTION); delete one first.`);
    }
    if (inserted.created) deps.changed();
    const [resource] = await views(found.id, [inserted.resource.id]);
    return { resource, created: inserted.created };
  }

  async function remove(deploymentId: string, key: ConnectionKey, id: string): Promise<void> {
    const found = await connection(deploymentId, key);
    if (!(await deps.store.delete(found.id, id))) throw new AppError("RESOURCE_NOT_FOUND", `This connection watches no resource ${id}.`);
    deps.changed();
  }

  return {
    /** The connection's resources, oldest first, each with its subscription. */
    async list(deploymentId: string, key: ConnectionKey): Promise<ResourceView[]> {
      return views((await connection(deploymentId, key)).id);
    },
    /** Idempotent: the same params again answer the existing resource (`created: false`). */
    add,
    remove,
    /** The deployment of the connection a resource belongs to (GraphQL's unwatchResource checks access to it); undefined when there is none. */
    async ownerOf(id: string): Promise<{ deploymentId: string; connectedAccountId: string } | undefined> {
      const row = await deps.db.watchedResource.findUnique({ where: { id }, select: { connectedAccountId: true, connectedAccount: { select: { deploymentId: true } } } });
      return row ? { deploymentId: row.connectedAccount.deploymentId, connectedAccountId: row.connectedAccountId } : undefined;
    },
    /**
     * The connect flow named resource params (`params[project_id]` on the auth-url): they become the
     * connection's first resource (or, on a reconnect, one more; the same params are the same one).
     */
    async adopt(connectedAccountId: string, connector: string, sessionParams: unknown): Promise<void> {
      const declared = resourceParamsOf(findConnector(connector)?.declaration.params ?? []);
      const given = storedParams(sessionParams);
      if (declared.length === 0 || !declared.every((p) => given[p.name] !== undefined)) return;
      const params = Object.fromEntries(declared.map((p) => [p.name, given[p.name]]));
      const inserted = await deps.store.insert(connectedAccountId, params, deps.clock.now(), deps.maxPerConnection);
      if ("resource" in inserted && inserted.created) deps.changed();
    },
  };
}

export type Resources = ReturnType<typeof createResources>;
