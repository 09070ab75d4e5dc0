import type { ApiKeys } from "../auth/apiKeys.ts";
import type { Resources } from "../connections/resources/resources.ts";
import type { Route } from "../http/types.ts";
import { authenticateApiKey } from "./apiKeyAuth.ts";

/**
 * DELETE /api/v1/connections/:connector/:account/resources/:id — 204 at once; its provider
 * subscription is deleted at the provider by the subscription manager's next pass (retried on
 * failure). Again: 404 `resource_not_found`.
 */
export function deleteResource(deps: { apiKeys: ApiKeys; resources: Resources }): Route {
  return {
    method: "DELETE",
    path: "/api/v1/connections/:connector/:account/resources/:id",
    handler: async (request) => {
      const { deploymentId } = await authenticateApiKey(deps.apiKeys, request);
      const { connector, account, id } = request.params;
      await deps.resources.remove(deploymentId, { connector, account }, id);
      return { status: 204, headers: { "cache-control": "no-store" } };
    },
  };
}
