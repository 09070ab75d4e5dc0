import type { ApiKeys } from "../auth/apiKeys.ts";
import type { Resources } from "../connections/resources/resources.ts";
import { badInput } from "../errors.ts";
import { json, type Route } from "../http/types.ts";
import { authenticateApiKey } from "./apiKeyAuth.ts";

/** A resource is a few short params: anything larger is not one. */
const BODY_LIMIT = 16 * 1024;

/**
 * POST /api/v1/connections/:connector/:account/resources with `{"params":{"project_id":"278964"}}` —
 * 201 with the new Resource; the same params again: 200 with the existing one. 400
 * `invalid_parameter` naming the parameter (or for a connector without resource parameters), 409
 * `limit_exceeded` past MAX_RESOURCES_PER_CONNECTION, 409 `connection_disconnected`, 404 `connection_not_found`.
 */
export function postResource(deps: { apiKeys: ApiKeys; resources: Resources }): Route {
  return {
    method: "POST",
    path: "/api/v1/connections/:connector/:account/resources",
    handler: async (request) => {
      const { deploymentId } = await authenticateApiKey(deps.apiKeys, request);
      const { connector, account } = request.params;
      let body: unknown;
      try {
        body = JSON.parse((await request.body(BODY_LIMIT)).toString("utf8"));
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        throw badInput('The body must be JSON: {"params": {…}}.', [{ field: "body", message: "is not JSON" }]);
      }
      const params = body && typeof body === "object" && !Array.isArray(body) ? (body as { params?: unknown }).params : undefined;
      const { resource, created } = await deps.resources.add(deploymentId, { connector, account }, params);
      return json(created ? 201 : 200, resource, { "cache-control": "no-store" });
    },
  };
}
