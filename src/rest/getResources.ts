import type { ApiKeys } from "../auth/apiKeys.ts";
import type { Resources } from "../connections/resources/resources.ts";
import { json, type Route } from "../http/types.ts";
import { authenticateApiKey } from "./apiKeyAuth.ts";

/** GET /api/v1/connections/:connector/:account/resources — `[Resource]`, oldest first; 404 `connection_not_found` (also another deployment's). */
export function getResources(deps: { apiKeys: ApiKeys; resources: Resources }): Route {
  return {
    method: "GET",
    path: "/api/v1/connections/:connector/:account/resources",
    handler: async (request) => {
      const { deploymentId } = await authenticateApiKey(deps.apiKeys, request);
      const { connector, account } = request.params;
      return json(200, await deps.resources.list(deploymentId, { connector, account }), { "cache-control": "no-store" });
    },
  };
}
