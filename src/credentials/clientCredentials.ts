import type { ConnectorDefinition } from "../connectors/types.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import { connectorEnvPrefix, findConnector } from "../connectors/registry.ts";
import { AppError } from "../errors.ts";
import { serviceCredentials } from "./serviceDefaults.ts";

/**
 * Which OAuth app (client id and secret) a deployment uses for a connector: the operator's own
 * (ConnectorCredentials, secret sealed) or the service's defaults (serviceDefaults.ts).
 */
export interface ResolvedCredentials {
  /** Absent only with service defaults that were never configured. */
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** "operator": the deployment's own OAuth app (no consent page); "service": the defaults. */
  source: "operator" | "service";
  /** APP_INSTALLATION connectors: the app (its id or client id, slug and private key), where set. */
  app?: Partial<AppCredentials>;
}

/** A GitHub App as the service authenticates as it: the JWT's issuer, the install URL's slug, the PEM key signing the JWT. */
export interface AppCredentials {
  appId: string;
  appSlug: string;
  privateKey: string;
}

export function hasApp(credentials: ResolvedCredentials): credentials is ResolvedCredentials & { app: AppCredentials } {
  return Boolean(credentials.app?.appId && credentials.app.appSlug && credentials.app.privateKey);
}

/**
 * Whether a connect flow can run with these credentials: API_KEY and BASIC need nothing (the end
 * user brings the key), APP_INSTALLATION needs the app, OAUTH2 an OAuth client.
 */
export function canConnect(def: Pick<ConnectorDefinition, "authMode">, credentials: ResolvedCredentials): boolean {
  if (def.authMode === "API_KEY" || def.authMode === "BASIC") return true;
  if (def.authMode === "APP_INSTALLATION") return hasApp(credentials);
  return hasOAuthClient(credentials);
}

/** The service-wide variables that make a connector connectable (what 409 connector_not_configured names). */
export function serviceVariables(def: Pick<ConnectorDefinition, "name" | "authMode">): string[] {
  const prefix = connectorEnvPrefix(def);
  return def.authMode === "APP_INSTALLATION" ? [`${prefix}APP_ID`, `${prefix}PRIVATE_KEY`, `${prefix}SLUG`] : [`${prefix}CLIENT_ID`, `${prefix}CLIENT_SECRET`];
}

/** An OAuth client that can actually run a flow: both halves present. */
export interface OAuthClientCredentials extends ResolvedCredentials {
  clientId: string;
  clientSecret: string;
}

export function hasOAuthClient(credentials: ResolvedCredentials): credentials is OAuthClientCredentials {
  return Boolean(credentials.clientId && credentials.clientSecret);
}

/**
 * The OAuth client in force for a deployment and connector: the connect flow's, the auth-url
 * route's and token refresh's. Inbound webhooks read their secret through inboundSecrets.ts instead.
 */
export function createClientCredentials({ db, box, connectorEnv }: { db: Db; box: SecretBox; connectorEnv: Record<string, string | undefined> }) {
  return {
    async resolve(deploymentId: string, connector: ConnectorDefinition | string): Promise<ResolvedCredentials> {
      const name = typeof connector === "string" ? connector : connector.name;
      const defaults = serviceCredentials(connectorEnv, { name });
      const own = await db.connectorCredentials.findUnique({ where: { deploymentId_connector: { deploymentId, connector: name } } });
      const installs = (typeof connector === "string" ? findConnector(connector) : connector)?.authMode === "APP_INSTALLATION";
      if (!installs) return own ? { clientId: own.clientId, clientSecret: box.open(own.clientSecretEncrypted), source: "operator" } : { clientId: defaults.clientId, clientSecret: defaults.clientSecret, source: "service" };
      if (!own) {
        const app = { appId: defaults.appId, appSlug: defaults.appSlug, privateKey: defaults.privateKey };
        return { clientId: defaults.clientId, clientSecret: defaults.clientSecret, source: "service", app };
      }
      // An app stored without its optional OAuth client keeps empty strings there: read as absent.
      const app = { appId: own.appId ?? undefined, appSlug: own.appSlug ?? undefined, privateKey: own.privateKeyEncrypted ? box.open(own.privateKeyEncrypted) : undefined };
      const clientSecret = own.clientSecretEncrypted ? box.open(own.clientSecretEncrypted) : undefined;
      return { clientId: own.clientId || undefined, clientSecret: clientSecret || undefined, source: "operator", app };
    },
  };
}

export type ClientCredentials = ReturnType<typeof createClientCredentials>;

/**
 * Refuses to start a connect flow that could not finish: without the OAuth client (or, for an app
 * installation, the app) in force for the deployment, the end user would be sent to a broken link.
 * 409 `connector_not_configured`, naming what fixes it: the auth-url route's and
 * createReauthorizationUrl's one answer.
 */
export async function requireConnectable(clientCredentials: Pick<ClientCredentials, "resolve">, deploymentId: string, def: ConnectorDefinition): Promise<void> {
  if (canConnect(def, await clientCredentials.resolve(deploymentId, def))) return;
  const variables = serviceVariables(def);
  const what = def.authMode === "APP_INSTALLATION" ? "app (its id, slug and private key)" : "OAuth client";
  throw new AppError(
    "CONNECTOR_NOT_CONFIGURED",
    `${def.displayName} has no ${what}: add this deployment's own in the console (deployment Settings → Connectors → ${def.displayName}), or set ${variables.slice(0, -1).join(", ")} and ${variables.at(-1)} on the service.`,
    { problemMembers: { connector: def.name, variables, consolePage: "Settings → Connectors" } },
  );
}
