import { connectorEnvPrefix } from "../connectors/registry.ts";
import type { ConnectorDefinition } from "../connectors/types.ts";

/**
 * The service's own OAuth app and webhook secret for a connector, from
 * `CONNECTOR_<NAME>_CLIENT_ID/_CLIENT_SECRET/_WEBHOOK_SECRET`: what a deployment uses while it has
 * stored none of its own (operatorCredentials.ts).
 */
export function serviceCredentials(env: Record<string, string | undefined>, def: Pick<ConnectorDefinition, "name">) {
  const prefix = connectorEnvPrefix(def);
  const read = (suffix: string) => env[`${prefix}${suffix}`]?.trim() || undefined;
  return { clientId: read("CLIENT_ID"), clientSecret: read("CLIENT_SECRET"), webhookSecret: read("WEBHOOK_SECRET") };
}
