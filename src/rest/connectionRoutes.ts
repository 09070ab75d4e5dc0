import type { ApiKeys } from "../auth/apiKeys.ts";
import type { Connections } from "../connections/connections.ts";
import type { Resources } from "../connections/resources/resources.ts";
import type { Route } from "../http/types.ts";
import { deleteConnection } from "./deleteConnection.ts";
import { getConnection } from "./getConnection.ts";
import { getConnections } from "./getConnections.ts";
import { deleteResource } from "./deleteResource.ts";
import { getResources } from "./getResources.ts";
import { postResource } from "./postResource.ts";

/** The connections API (`x-api-key`): list, read, delete; a connection's resources: list, add, delete. */
export function connectionRoutes(deps: { apiKeys: ApiKeys; connections: Connections; resources: Resources; publicUrl: string }): Route[] {
  return [getConnections(deps), getConnection(deps), deleteConnection(deps), getResources(deps), postResource(deps), deleteResource(deps)];
}
