import { credentialsOf } from "../connect/credentials.ts";
import type { ConnectSettings } from "../connections/connectSettings.ts";
import { readParams } from "../connectors/params.ts";
import { checkRedirectUrl } from "../connections/redirects.ts";
import { connectorEnvPrefix, findConnector } from "../connectors/registry.ts";
import type { ClientCredentials } from "../credentials/clientCredentials.ts";
import { authModeOf, requireConnectable } from "../connections/authModes/index.ts";
import { AppError, badInput, unknownConnector } from "../errors.ts";
import { json, type Route } from "../http/types.ts";
import { createConnectSession } from "../connect/sessions.ts";
import type { OAuthDeps } from "../connect/deps.ts";
import type { ApiKeys } from "../auth/apiKeys.ts";
import { authenticateApiKey } from "./apiKeyAuth.ts";

export interface AuthUrlDeps extends OAuthDeps {
  apiKeys: ApiKeys;
  clientCredentials: ClientCredentials;
  connectSettings: ConnectSettings;
}

/**
 * Control characters (C0, DEL, C1) are refused, and so are the other invisible ones: bidi
 * overrides and isolates, zero-width and other format characters, line and paragraph separators,
 * lone surrogates. The account name appears in pages and logs, where they could disguise it.
 */
const CONTROL = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

const problem = (field: string, message: string) => badInput(message, [{ field, message }]);
const accountProblem = (message: string) => problem("account", message);

/** The end user's id in the operator's system, as auth-url takes it (the console's test URL too); otherwise the 400 saying why. */
export function checkAccount(account: string | undefined): string {
  if (account === undefined) throw accountProblem("account is required: the end user's id in your system.");
  if (account.length === 0) throw accountProblem("account must not be empty.");
  if ([...account].length > 255) throw accountProblem("account must be at most 255 characters.");
  if (CONTROL.test(account)) throw accountProblem("account must not contain control characters or invisible formatting characters (such as bidi overrides like U+202E or zero-width characters).");
  return account;
}

/** The optional `redirectUrl`, checked against the deployment's allowed redirect origins. */
async function readRedirectUrl(deps: AuthUrlDeps, deploymentId: string, query: URLSearchParams): Promise<string | undefined> {
  const values = query.getAll("redirectUrl");
  if (values.length === 0) return undefined;
  if (values.length > 1) throw problem("redirectUrl", "Give redirectUrl once.");
  const { allowedRedirectOrigins } = await deps.connectSettings.read(deploymentId);
  const checked = checkRedirectUrl(values[0], allowedRedirectOrigins);
  if (!checked.ok) throw new AppError("BAD_USER_INPUT", checked.message, { fields: [{ field: "redirectUrl", message: checked.message }], problemMembers: { setting: "allowedRedirectOrigins" } });
  return checked.url.toString();
}

/**
 * GET /api/v1/connector/service/:connector_name/auth-url?account=[&redirectUrl=][&params[name]=] —
 * a single-use authorization URL for one end-user account; where the browser goes when the flow
 * ends, and the connection parameters the connector declares, are kept on its session. Without any OAuth client for the connector (neither the deployment's
 * own credentials nor the service's CONNECTOR_<NAME>_CLIENT_ID/_CLIENT_SECRET) it answers 409
 * `connector_not_configured`, naming what fixes it, instead of a link the end user would find broken.
 */
export function getAuthUrl(deps: AuthUrlDeps): Route {
  return {
    method: "GET",
    path: "/api/v1/connector/service/:connector_name/auth-url",
    handler: async (request) => {
      const { deploymentId } = await authenticateApiKey(deps.apiKeys, request);
      const name = request.params.connector_name;
      const def = findConnector(name);
      // A connector that is never authorized (Switchyard's own events) has no authorization URL.
      if (!def || authModeOf(def).connect === null) throw unknownConnector(name);

      const values = request.url.searchParams.getAll("account");
      if (values.length > 1) throw accountProblem("Give account once.");
      const account = checkAccount(values[0]);

      const params = readParams(def.declaration.params, request.url.searchParams);
      if (!params.ok) throw problem(params.name, params.message);
      const redirectUrl = await readRedirectUrl(deps, deploymentId, request.url.searchParams);

      // API_KEY and BASIC connectors need no OAuth client: the end user brings the credentials.
      await requireConnectable(deps.clientCredentials, deploymentId, def);

      const session = await createConnectSession(deps, deploymentId, def.name, account, { redirectUrl, params: params.values });
      return json(
        200,
        { authUrl: session.authUrl, connector: def.name, account, expiresAt: session.expiresAt.toISOString() },
        { "cache-control": "no-store" },
      );
    },
  };
}
