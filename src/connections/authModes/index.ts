/**
 * The auth modes, one strategy each (strategy.ts is the interface). A connector's mode is its
 * declaration's `authMode`; everything that differs by mode — how an end user connects, what the
 * operator configures, what the token is called, how it is renewed — is asked of its strategy here.
 */
import { connectorEnvPrefix } from "../../connectors/registry.ts";
import type { AuthMode } from "../../connectors/declaration.ts";
import type { ConnectorDefinition } from "../../connectors/types.ts";
import { type ClientCredentials, hasApp, hasOAuthClient, type ResolvedCredentials } from "../../credentials/clientCredentials.ts";
import { AppError } from "../../errors.ts";
import { appInstallation } from "./appInstallation.ts";
import { apiKey, basic } from "./keyed.ts";
import { none } from "./none.ts";
import { oauth2 } from "./oauth2.ts";
import type { AuthModeStrategy } from "./strategy.ts";

export type { AuthModeStrategy, Renewal, RenewRequest } from "./strategy.ts";

const STRATEGIES: Record<AuthMode, AuthModeStrategy> = { OAUTH2: oauth2, API_KEY: apiKey, BASIC: basic, APP_INSTALLATION: appInstallation, NONE: none };

export const authModeOf = (def: Pick<ConnectorDefinition, "authMode">): AuthModeStrategy => STRATEGIES[def.authMode];

/** Whether these credentials hold the client the connector's operator configures: its app (APP_INSTALLATION), else an OAuth client. */
const CLIENT_PRESENT = { app: hasApp, oauthClient: hasOAuthClient } as const;

export const hasClient = (def: Pick<ConnectorDefinition, "authMode">, credentials: ResolvedCredentials): boolean =>
  CLIENT_PRESENT[authModeOf(def).operatorClient](credentials);

/** The service-wide variables that make a connector connectable (what 409 connector_not_configured names). */
export function serviceVariables(def: Pick<ConnectorDefinition, "name" | "authMode">): string[] {
  const prefix = connectorEnvPrefix(def);
  return authModeOf(def).serviceVariables.map((suffix) => `${prefix}${suffix}`);
}

/**
 * Refuses to start a connect flow that could not finish: without the OAuth client (or, for an app
 * installation, the app) in force for the deployment, the end user would be sent to a broken link.
 * 409 `connector_not_configured`, naming what fixes it: the auth-url route's and
 * createReauthorizationUrl's one answer.
 */
export async function requireConnectable(clientCredentials: Pick<ClientCredentials, "resolve">, deploymentId: string, def: ConnectorDefinition): Promise<void> {
  const mode = authModeOf(def);
  if (mode.canConnect(await clientCredentials.resolve(deploymentId, def))) return;
  const variables = serviceVariables(def);
  throw new AppError(
    "CONNECTOR_NOT_CONFIGURED",
    `${def.displayName} has no ${mode.clientLabel}: add this deployment's own in the console (deployment Settings → Connectors → ${def.displayName}), or set ${variables.slice(0, -1).join(", ")} and ${variables.at(-1)} on the service.`,
    { problemMembers: { connector: def.name, variables, consolePage: "Settings → Connectors" } },
  );
}
