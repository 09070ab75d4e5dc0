import type { ApiKeys } from "../auth/apiKeys.ts";
import type { Connections } from "../connections/connections.ts";
import { json, type Route } from "../http/types.ts";
import { authenticateApiKey } from "./apiKeyAuth.ts";

/** GET /api/v1/connections/:connector/:account — one Connection; 404 `connection_not_found` (also another deployment's). */
export function getConnection(deps: { apiKeys: ApiKeys; connections: Connections }): Route {
  return {
    method: "GET",
    path: "/api/v1/connections/:connector/:account",
    handler: async (request) => {
      const { deploymentId } = await authenticateApiKey(deps.apiKeys, request);
      const { connector, account } = request.params;
      return json(200, await deps.connections.get(deploymentId, { connector, account }), { "cache-control": "no-store" });
    },
  };
}
