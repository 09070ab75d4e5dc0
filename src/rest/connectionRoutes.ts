import type { ApiKeys } from "../auth/apiKeys.ts";
import type { Connections } from "../connections/connections.ts";
import type { Route } from "../http/types.ts";
import { deleteConnection } from "./deleteConnection.ts";
import { getConnection } from "./getConnection.ts";
import { getConnections } from "./getConnections.ts";

/** The connections API (`x-api-key`): list, read, delete. */
export function connectionRoutes(deps: { apiKeys: ApiKeys; connections: Connections; publicUrl: string }): Route[] {
  return [getConnections(deps), getConnection(deps), deleteConnection(deps)];
}
