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
      if (!own) return { clientId: defaults.clientId, clientSecret: defaults.clientSecret, source: "service" };
      return { clientId: own.clientId, clientSecret: box.open(own.clientSecretEncrypted), source: "operator" };
    },
  };
}

export type ClientCredentials = ReturnType<typeof createClientCredentials>;
