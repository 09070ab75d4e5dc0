import { findConnector } from "../connectors/registry.ts";
import { HttpProblem } from "../http/problem.ts";
import { json, type Route } from "../http/types.ts";
import { createConnectSession } from "../oauth/connectSessions.ts";
import type { Services } from "../services.ts";
import { authenticateApiKey } from "./apiKeyAuth.ts";

/** Control characters (C0, DEL, C1) are refused: the account name appears in pages and logs. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * GET /api/v1/connector/service/:connector_name/auth-url?account= — a single-use authorization URL
 * for one end-user account (SPEC §2). The URL is handed out even when no OAuth client is configured
 * for the connector yet (the contract's answers are 200/400/401/404/429): the connect page then
 * says the connector is not set up, and setting credentials makes the same link work.
 */
export function getAuthUrl(services: Services): Route {
  return {
    method: "GET",
    path: "/api/v1/connector/service/:connector_name/auth-url",
    handler: async (request) => {
      const { deploymentId } = await authenticateApiKey(services, request);
      const name = request.params.connector_name;
      const def = findConnector(name);
      if (!def) throw new HttpProblem(404, "unknown_connector", `There is no connector named "${name}".`);

      const values = request.url.searchParams.getAll("account");
      if (values.length > 1) throw new HttpProblem(400, "invalid_parameter", "Give account once.");
      const account = values[0];
      if (account === undefined) throw new HttpProblem(400, "invalid_parameter", "account is required: the end user's id in your system.");
      if (account.length === 0) throw new HttpProblem(400, "invalid_parameter", "account must not be empty.");
      if ([...account].length > 255) throw new HttpProblem(400, "invalid_parameter", "account must be at most 255 characters.");
      if (CONTROL.test(account)) throw new HttpProblem(400, "invalid_parameter", "account must not contain control characters.");

      const session = await createConnectSession(services, deploymentId, def.name, account);
      return json(
        200,
        { authUrl: session.authUrl, connector: def.name, account, expiresAt: session.expiresAt.toISOString() },
        { "cache-control": "no-store" },
      );
    },
  };
}
