import type { ConnectorDefinition, ProviderEndpoints } from "./types.ts";
import { github } from "./github/definition.ts";
import { gmail } from "./gmail/definition.ts";
import { jira } from "./jira/definition.ts";
import { slack } from "./slack/definition.ts";

/** THE list. Adding a connector is its folder plus one line here. */
export const connectors: readonly ConnectorDefinition[] = Object.freeze([gmail, github, jira, slack]);

export const connectorNames: readonly string[] = Object.freeze(connectors.map((c) => c.name));

const byName = new Map(connectors.map((c) => [c.name, c]));

/** Exact, case-sensitive: connector names are lower-case by contract and appear verbatim in URLs. */
export function findConnector(name: string): ConnectorDefinition | undefined {
  return byName.get(name);
}

/** Prefix of a connector's environment variables: gmail → CONNECTOR_GMAIL_. */
export function connectorEnvPrefix(def: Pick<ConnectorDefinition, "name">): string {
  return `CONNECTOR_${def.name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_`;
}

/**
 * The endpoints to use, with CONNECTOR_<NAME>_AUTHORIZE_URL / _TOKEN_URL / _API_URL / _JWKS_URL
 * applied (empty values are ignored; a trailing slash is dropped so `${apiUrl}${path}` works). Pure: the server passes in its own env.
 */
export function resolveEndpoints(def: ConnectorDefinition, env: Record<string, string | undefined>): ProviderEndpoints {
  const prefix = connectorEnvPrefix(def);
  const pick = (suffix: string, fallback: string) => {
    const value = env[`${prefix}${suffix}`]?.trim();
    return value ? value.replace(/\/+$/, "") : fallback;
  };
  // Only connectors that declare a JWKS use one; an override cannot add one to the others.
  const jwksUrl = def.endpoints.jwksUrl === undefined ? undefined : pick("JWKS_URL", def.endpoints.jwksUrl);
  return {
    authorizeUrl: pick("AUTHORIZE_URL", def.endpoints.authorizeUrl),
    tokenUrl: pick("TOKEN_URL", def.endpoints.tokenUrl),
    apiUrl: pick("API_URL", def.endpoints.apiUrl),
    ...(jwksUrl ? { jwksUrl } : {}),
  };
}
