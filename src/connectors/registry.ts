import { compileConnector } from "./compile.ts";
import { validateDeclaration } from "./declaration.ts";
import { providers } from "./providers/index.ts";
import { fillTemplate } from "./params.ts";
import { unknownConnector } from "../errors.ts";
import type { ConnectorDefinition, ProviderEndpoints } from "./types.ts";

/**
 * Every declaration in providers/index.ts, validated (a bad one throws with the file and field
 * named) and compiled. `npm run build` runs it over the whole catalog, and so do the tests; a start
 * validates and compiles each declaration on its first use instead (`findConnector`, `allConnectors`).
 * A declaration lives in `providers/<name>/index.ts`, its shapes and generated events beside it.
 */
export function loadConnectors(declarations: readonly unknown[]): ConnectorDefinition[] {
  const seen = new Set<string>();
  return declarations.map((input, index) => {
    const declaration = validateDeclaration(declarationFile(input, index), input);
    if (seen.has(declaration.name)) throw new Error(`Invalid connector declaration in ${declarationFile(input, index)}:\n  name: "${declaration.name}" is declared twice`);
    seen.add(declaration.name);
    return compileConnector(declaration);
  });
}

const nameOf = (input: unknown) => (input as { name?: unknown } | null)?.name;
const declarationFile = (input: unknown, index: number) => {
  const name = nameOf(input);
  return typeof name === "string" && /^[a-z][a-z0-9_]*$/.test(name) ? `src/connectors/providers/${name}/index.ts` : `src/connectors/providers/index.ts (entry ${index + 1})`;
};

/** The declarations as written, by name (a name declared twice fails loadConnectors, hence the build). */
const declared = new Map(providers.map((input, index) => [String(nameOf(input)), { input, index }]));

export const connectorNames: readonly string[] = Object.freeze([...declared.keys()]);

/**
 * Each connector validated and compiled on its first use, then kept: zod over the whole catalog
 * was a tenth of a start's CPU, and most starts need a few connectors or none before serving.
 */
const byName = new Map<string, ConnectorDefinition>();

/** The whole catalog, in its order (validating what was not used yet). */
export function allConnectors(): readonly ConnectorDefinition[] {
  return connectorNames.map((name) => findConnector(name)!);
}

/** Exact, case-sensitive: connector names are lower-case by contract and appear verbatim in URLs. */
export function findConnector(name: string): ConnectorDefinition | undefined {
  let def = byName.get(name);
  if (def) return def;
  const found = declared.get(name);
  if (!found) return undefined;
  def = compileConnector(validateDeclaration(declarationFile(found.input, found.index), found.input));
  byName.set(name, def);
  return def;
}

/** How long the named connector's replay check remembers a body (seconds); undefined when it checks none or is unknown. */
export function replayWindowSeconds(name: string): number | undefined {
  return findConnector(name)?.inbound?.replayWindowSeconds;
}

/** The connector named, or BAD_USER_INPUT naming the field (what GraphQL mutations taking a connector name answer). */
export function knownConnector(name: string): ConnectorDefinition {
  const def = findConnector(name);
  if (!def) throw unknownConnector(name);
  return def;
}

/** Prefix of a connector's environment variables: gmail → CONNECTOR_GMAIL_. */
export function connectorEnvPrefix(def: Pick<ConnectorDefinition, "name">): string {
  return `CONNECTOR_${def.name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_`;
}

/**
 * The endpoints to use, with CONNECTOR_<NAME>_AUTHORIZE_URL / _TOKEN_URL / _API_URL / _JWKS_URL /
 * _REVOCATION_URL applied (empty values are ignored; a trailing slash is dropped so `${apiUrl}${path}` works), then
 * the connection's parameters filled into `{name}` placeholders (overrides may name them too).
 * Given params, a placeholder without a value throws: a connector that declares params needs the
 * connection's to be called. Without params (callers that need no tenant URL, like the JWKS) the
 * placeholders are left as they are. Pure: the server passes in its own env.
 */
export function resolveEndpoints(def: ConnectorDefinition, env: Record<string, string | undefined>, params?: Record<string, string>): ProviderEndpoints {
  const prefix = connectorEnvPrefix(def);
  const pick = (suffix: string, fallback: string) => endpoint(def, env, suffix, fallback, params);
  const jwksUrl = resolveJwksUrl(def, env, params);
  const revocationUrl = def.endpoints.revocationUrl === undefined ? undefined : pick("REVOCATION_URL", def.endpoints.revocationUrl);
  return {
    authorizeUrl: pick("AUTHORIZE_URL", def.endpoints.authorizeUrl),
    tokenUrl: pick("TOKEN_URL", def.endpoints.tokenUrl),
    apiUrl: pick("API_URL", def.endpoints.apiUrl),
    ...(env[`${prefix}API_URL`]?.trim() ? { apiUrlOverridden: true } : {}),
    ...(jwksUrl ? { jwksUrl } : {}),
    ...(revocationUrl ? { revocationUrl } : {}),
  };
}

/**
 * resolveEndpoints' JWKS URL alone, for the inbound route, which needs nothing else on every
 * request. Only connectors that declare a JWKS use one; an override cannot add one to the others.
 */
export function resolveJwksUrl(def: ConnectorDefinition, env: Record<string, string | undefined>, params?: Record<string, string>): string | undefined {
  return def.endpoints.jwksUrl === undefined ? undefined : endpoint(def, env, "JWKS_URL", def.endpoints.jwksUrl, params);
}

/** One endpoint: its CONNECTOR_<NAME>_<suffix> override or the declared URL, then the params filled in (resolveEndpoints). */
function endpoint(def: ConnectorDefinition, env: Record<string, string | undefined>, suffix: string, declared: string, params?: Record<string, string>): string {
  const value = env[`${connectorEnvPrefix(def)}${suffix}`]?.trim();
  const url = value ? value.replace(/\/+$/, "") : declared;
  return params ? fillTemplate(url, params, def.declaration.params) : url;
}
