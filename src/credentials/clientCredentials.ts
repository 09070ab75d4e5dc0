import type { ConnectorDefinition } from "../connectors/types.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
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

/** An OAuth client that can actually run a flow: both halves present. */
export interface OAuthClientCredentials extends ResolvedCredentials {
  clientId: string;
  clientSecret: string;
}

export function hasOAuthClient(credentials: ResolvedCredentials): credentials is OAuthClientCredentials {
  return Boolean(credentials.clientId && credentials.clientSecret);
}

const hasAny = (app: Partial<AppCredentials>) => Boolean(app.appId || app.appSlug || app.privateKey);

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
      // An app's fields are read for every connector: only an APP_INSTALLATION connector's strategy asks for them.
      if (!own) {
        const app = { appId: defaults.appId, appSlug: defaults.appSlug, privateKey: defaults.privateKey };
        return { clientId: defaults.clientId, clientSecret: defaults.clientSecret, source: "service", ...(hasAny(app) ? { app } : {}) };
      }
      // An app stored without its optional OAuth client keeps empty strings there: read as absent.
      const app = { appId: own.appId ?? undefined, appSlug: own.appSlug ?? undefined, privateKey: own.privateKeyEncrypted ? box.open(own.privateKeyEncrypted) : undefined };
      const clientSecret = own.clientSecretEncrypted ? box.open(own.clientSecretEncrypted) : undefined;
      return { clientId: own.clientId || undefined, clientSecret: clientSecret || undefined, source: "operator", ...(hasAny(app) ? { app } : {}) };
    },
  };
}

export type ClientCredentials = ReturnType<typeof createClientCredentials>;
