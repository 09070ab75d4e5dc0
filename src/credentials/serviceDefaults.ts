import { connectorEnvPrefix } from "../connectors/registry.ts";
import type { ConnectorDefinition } from "../connectors/types.ts";

/**
 * The service's own OAuth app and webhook secret for a connector, from
 * `CONNECTOR_<NAME>_CLIENT_ID/_CLIENT_SECRET/_WEBHOOK_SECRET` (and, for APP_INSTALLATION connectors,
 * the app's `_APP_ID/_PRIVATE_KEY/_SLUG`): what a deployment uses while it has stored none of its
 * own (operatorCredentials.ts).
 */
export function serviceCredentials(env: Record<string, string | undefined>, def: Pick<ConnectorDefinition, "name">) {
  const prefix = connectorEnvPrefix(def);
  const read = (suffix: string) => env[`${prefix}${suffix}`]?.trim() || undefined;
  return {
    clientId: read("CLIENT_ID"),
    clientSecret: read("CLIENT_SECRET"),
    webhookSecret: read("WEBHOOK_SECRET"),
    appId: read("APP_ID"),
    // A PEM in one environment line is usually written with literal \n between its lines.
    privateKey: read("PRIVATE_KEY")?.replace(/\\n/g, "\n"),
    appSlug: read("SLUG"),
  };
}
