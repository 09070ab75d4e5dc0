import type { ApiKeys } from "../auth/apiKeys.ts";
import type { Connections } from "../connections/connections.ts";
import type { Route } from "../http/types.ts";
import { authenticateApiKey } from "./apiKeyAuth.ts";

/**
 * DELETE /api/v1/connections/:connector/:account — 204: disconnected, tokens forgotten, the grant
 * revoked where the connector declares how. Again: 204, nothing more happens. Never connected: 404.
 */
export function deleteConnection(deps: { apiKeys: ApiKeys; connections: Connections }): Route {
  return {
    method: "DELETE",
    path: "/api/v1/connections/:connector/:account",
    handler: async (request) => {
      const { deploymentId } = await authenticateApiKey(deps.apiKeys, request);
      const { connector, account } = request.params;
      await deps.connections.disconnect(deploymentId, { connector, account });
      return { status: 204, headers: { "cache-control": "no-store" } };
    },
  };
}
