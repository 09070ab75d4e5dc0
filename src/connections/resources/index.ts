/**
 * The resources a connection watches (`watched_resource`): every statement on the table is in this
 * folder, and nothing outside it writes the table. A row is added (POST …/resources, a connect flow
 * naming params[project_id]) and deleted (DELETE …/resources/{id}); it has no states. What a row
 * changes at the provider is the subscription manager's: database triggers note every insert and
 * delete for its plan (src/subscriptions/queue/changes.ts), so its subscription is made, or deleted
 * at the provider, within the manager's next pass on whichever instance runs it.
 */
import type { Sql } from "../../db/sql.ts";
import { deleteResource } from "./deleteResource.ts";
import { insertResource } from "./insertResource.ts";
import { listResources } from "./listResources.ts";

export type { ResourceRow } from "./listResources.ts";

export function createResourceStore({ sql }: { sql: Sql }) {
  return {
    list: (connectedAccountIds: string[]) => listResources(sql, connectedAccountIds),
    insert: (connectedAccountId: string, params: Record<string, string>, now: Date, max: number) => insertResource(sql, connectedAccountId, params, now, max),
    delete: (connectedAccountId: string, id: string) => deleteResource(sql, connectedAccountId, id),
  };
}

export type ResourceStore = ReturnType<typeof createResourceStore>;
