import { connectorEnvPrefix, findConnector } from "../connectors/registry.ts";
import { type ClientCredentials, hasOAuthClient } from "../credentials/clientCredentials.ts";
import { AppError, badInput, unknownConnector } from "../errors.ts";
import { json, type Route } from "../http/types.ts";
import { createConnectSession } from "../oauth/connectSessions.ts";
import type { ApiKeys } from "../auth/apiKeys.ts";
import type { OAuthDeps } from "../oauth/deps.ts";
import { authenticateApiKey } from "./apiKeyAuth.ts";

/**
 * Control characters (C0, DEL, C1) are refused, and so are the other invisible ones: bidi
 * overrides and isolates, zero-width and other format characters, line and paragraph separators,
 * lone surrogates. The account name appears in pages and logs, where they could disguise it.
 */
const CONTROL = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

const accountProblem = (message: string) => badInput(message, [{ field: "account", message }]);

/**
 * GET /api/v1/connector/service/:connector_name/auth-url?account= — a single-use authorization URL
 * for one end-user account. Without any OAuth client for the connector (neither the deployment's
 * own credentials nor the service's CONNECTOR_<NAME>_CLIENT_ID/_CLIENT_SECRET) it answers 409
 * `connector_not_configured`, naming what fixes it, instead of a link the end user would find broken.
 */
export function getAuthUrl({ oauth, apiKeys, clientCredentials }: { oauth: OAuthDeps; apiKeys: ApiKeys; clientCredentials: ClientCredentials }): Route {
  return {
    method: "GET",
    path: "/api/v1/connector/service/:connector_name/auth-url",
    handler: async (request) => {
      const { deploymentId } = await authenticateApiKey(apiKeys, request);
      const name = request.params.connector_name;
      const def = findConnector(name);
      if (!def) throw unknownConnector(name);

      const values = request.url.searchParams.getAll("account");
      if (values.length > 1) throw accountProblem("Give account once.");
      const account = values[0];
      if (account === undefined) throw accountProblem("account is required: the end user's id in your system.");
      if (account.length === 0) throw accountProblem("account must not be empty.");
      if ([...account].length > 255) throw accountProblem("account must be at most 255 characters.");
      if (CONTROL.test(account)) throw accountProblem("account must not contain control characters or invisible formatting characters (such as bidi overrides like U+202E or zero-width characters).");

      if (!hasOAuthClient(await clientCredentials.resolve(deploymentId, def))) {
        const prefix = connectorEnvPrefix(def);
        const variables = [`${prefix}CLIENT_ID`, `${prefix}CLIENT_SECRET`];
        throw new AppError(
          "CONNECTOR_NOT_CONFIGURED",
          `${def.displayName} has no OAuth client: add this deployment's own in the console (deployment Settings → Connectors → ${def.displayName}), or set ${variables.join(" and ")} on the service.`,
          { problemMembers: { connector: def.name, variables, consolePage: "Settings → Connectors" } },
        );
      }

      const session = await createConnectSession(oauth, deploymentId, def.name, account);
      return json(
        200,
        { authUrl: session.authUrl, connector: def.name, account, expiresAt: session.expiresAt.toISOString() },
        { "cache-control": "no-store" },
      );
    },
  };
}
