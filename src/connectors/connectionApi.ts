/**
 * Where one connection's API calls go and what they carry. Every caller of a provider's API on a
 * connection's behalf (the proxy, polls, subscription calls, the credential check) takes both from
 * here, so the CONNECTOR_<NAME>_API_URL rule and the filling of declared headers hold at each.
 */
import { type ApiDeclaration, apiOf, forConnection, resolveApiBase } from "./api.ts";
import { storedParams } from "./params.ts";
import { resolveEndpoints } from "./registry.ts";
import type { ConnectorDefinition } from "./types.ts";

export interface ConnectionApi {
  /** The connector's api section, its declared headers filled for this connection (api.ts forConnection). */
  api: ApiDeclaration;
  /** The connection's API base (api.ts resolveApiBase); the proxy's own where one is declared (Google Sheets' host). */
  base: URL;
}

/** Throws ApiBaseError when the connection lacks, or has an unsafe, value its base needs. */
export function connectionApi(
  def: ConnectorDefinition,
  connectorEnv: Record<string, string | undefined>,
  connection: { params: unknown; metadata: unknown },
  options: { allowHttp: boolean; proxied?: boolean },
): ConnectionApi {
  const api = forConnection(apiOf(def.declaration), connection);
  // The connection's params fill the API URL's host (`https://{domain}.freshdesk.com/api/v2`).
  const { apiUrl, apiUrlOverridden } = resolveEndpoints(def, connectorEnv, storedParams(connection.params));
  const based = options.proxied && api.proxyBaseUrl ? { ...api, connectionBaseUrl: api.proxyBaseUrl } : api;
  return { api, base: resolveApiBase(based, apiUrl, connection, { allowHttp: options.allowHttp, apiUrlOverridden }) };
}
