import type { ApiKeys } from "../auth/apiKeys.ts";
import type { ConnectionTokens } from "../connections/token.ts";
import { badInput } from "../errors.ts";
import { header, json, type Route } from "../http/types.ts";

/** The part of an API key that names it in logs and the console ("sy_live_" and 4 characters). */
export const apiKeyPrefix = (presented: string | undefined) => (presented ?? "").slice(0, 12);

/**
 * GET /api/v1/connections/:connector/:account/token — the connection's current access token,
 * refreshed first when it expires within five minutes, or always with `?refresh=true`.
 */
export function getConnectionToken(apiKeys: ApiKeys, tokens: ConnectionTokens): Route {
  return {
    method: "GET",
    path: "/api/v1/connections/:connector/:account/token",
    handler: async (request) => {
      const presented = header(request, "x-api-key");
      const { deploymentId } = await apiKeys.authenticate(presented);
      const refresh = request.url.searchParams.get("refresh");
      if (refresh !== null && refresh !== "true" && refresh !== "false") {
        throw badInput("refresh must be true or false.", [{ field: "refresh", message: "must be true or false" }]);
      }
      const answer = await tokens.read({ deploymentId, apiKeyPrefix: apiKeyPrefix(presented) }, request.params.connector, request.params.account, {
        refresh: refresh === "true",
      });
      return json(200, answer, { "cache-control": "no-store", pragma: "no-cache" });
    },
  };
}
