import * as oauth from "oauth4webapi";
import { TokenResponseError } from "../connectors/tokenResponse.ts";
import { resolveEndpoints } from "../connectors/registry.ts";
import type { ConnectorDefinition, ExternalIdentity, FetchInit, NormalizedToken, ProviderEndpoints } from "../connectors/types.ts";
import type { Config } from "../config.ts";
import { storableJson, storableOptional, storableText } from "../text/storable.ts";
import { readCapped } from "../net/readCapped.ts";

/**
 * One connector's OAuth 2.0 authorization server as oauth4webapi sees it, built from the
 * connector's data (endpoints with their CONNECTOR_<NAME>_* overrides, client authentication).
 * Nothing here knows a connector by name.
 */
export interface Provider {
  def: ConnectorDefinition;
  endpoints: ProviderEndpoints;
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  /** Plain http endpoints are accepted outside production (local fakes, development). */
  requestOptions: { [oauth.allowInsecureRequests]?: boolean; signal?: AbortSignal };
}

/** A token endpoint that failed as a server (5xx, network, unreadable body) rather than with an OAuth error. */
export class ProviderUnavailableError extends Error {
  /** The provider's HTTP status, when it answered (connectors branch on it, e.g. Gmail's 404). */
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "ProviderUnavailableError";
  }
  /** The provider's parsed error answer, set (not enumerable) by bearerFetchJson. */
  declare readonly body?: unknown;
}

const PROVIDER_TIMEOUT_MS = 15_000;

/** The OAuth client a flow or a refresh runs as: both halves present. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/** `params`: the connect session's or connection's parameters, filling the connector's URL placeholders. */
export function providerFor(config: Config, def: ConnectorDefinition, credentials: OAuthClient, params: Record<string, string>): Provider {
  const endpoints = resolveEndpoints(def, config.connectorEnv, params);
  const insecure = config.env !== "production" && [endpoints.authorizeUrl, endpoints.tokenUrl].some((u) => u.startsWith("http:"));
  return {
    def,
    endpoints,
    as: {
      issuer: new URL(endpoints.authorizeUrl).origin,
      authorization_endpoint: endpoints.authorizeUrl,
      token_endpoint: endpoints.tokenUrl,
    },
    client: { client_id: credentials.clientId },
    clientAuth: def.oauth.clientAuth === "client_secret_basic" ? oauth.ClientSecretBasic(credentials.clientSecret) : oauth.ClientSecretPost(credentials.clientSecret),
    requestOptions: insecure ? { [oauth.allowInsecureRequests]: true } : {},
  };
}

export function redirectUri(config: Config): string {
  return `${config.publicUrl}/oauth/callback`;
}

/** The provider's authorize URL for one attempt: state bound to the session, PKCE S256 where supported. */
export async function authorizationUrl(provider: Provider, config: Config, state: string, codeVerifier: string | undefined): Promise<string> {
  const { def } = provider;
  const url = new URL(provider.endpoints.authorizeUrl);
  url.searchParams.set("client_id", provider.client.client_id);
  url.searchParams.set("redirect_uri", redirectUri(config));
  url.searchParams.set("response_type", "code");
  // Providers without scopes (the app's settings decide what it may do) get no scope parameter.
  if (def.oauth.scopes.length > 0) url.searchParams.set(def.oauth.scopeParam ?? "scope", def.oauth.scopes.join(def.oauth.scopeSeparator));
  url.searchParams.set("state", state);
  if (codeVerifier) {
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(codeVerifier));
    url.searchParams.set("code_challenge_method", "S256");
  }
  for (const [name, value] of Object.entries(def.oauth.extraAuthorizeParams ?? {})) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * Reads a token endpoint answer with the connector's own reader: providers differ (GitHub answers
 * errors with 200, Slack nests the user token in authed_user, GitHub may answer form-encoded), so
 * oauth4webapi's strict RFC 6749 processing is not used here, only its requests.
 */
export async function readTokenEndpointResponse(provider: Provider, response: Response): Promise<NormalizedToken> {
  const text = await response.text().catch(() => "");
  const type = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  let body: Record<string, unknown> | undefined;
  if (type === "application/x-www-form-urlencoded") {
    body = Object.fromEntries(new URLSearchParams(text));
  } else {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      body = undefined;
    }
  }
  if (!body) {
    throw new ProviderUnavailableError(`${provider.def.displayName}'s token endpoint answered HTTP ${response.status} without a readable body`);
  }
  if (response.status >= 500 && typeof body.error !== "string" && body.ok !== false) {
    throw new ProviderUnavailableError(`${provider.def.displayName}'s token endpoint answered HTTP ${response.status}`);
  }
  const token = provider.def.oauth.readTokenResponse(body);
  if (!response.ok) {
    // A 4xx without a recognizable error body is still a refusal.
    throw new TokenResponseError("invalid_request", `HTTP ${response.status}`);
  }
  // The granted scopes are stored (a text[] column, which refuses a NUL like any text).
  return { ...token, scopes: token.scopes.map(storableText) };
}

async function callTokenEndpoint(provider: Provider, request: () => Promise<Response>): Promise<NormalizedToken> {
  let response: Response;
  try {
    response = await request();
  } catch (error) {
    if (error instanceof TypeError || (error as Error).name === "TimeoutError" || (error as Error).name === "AbortError") {
      throw new ProviderUnavailableError(`${provider.def.displayName}'s token endpoint could not be reached: ${(error as Error).message}`);
    }
    throw error;
  }
  return readTokenEndpointResponse(provider, response);
}

/** The authorization-code exchange, with the callback parameters validated against the expected state. */
export async function exchangeCode(
  provider: Provider,
  config: Config,
  callback: URLSearchParams,
  expectedState: string,
  codeVerifier: string | undefined,
): Promise<NormalizedToken> {
  const params = oauth.validateAuthResponse(provider.as, provider.client, callback, expectedState);
  // What the provider added to the redirect and wants back (BigCommerce's `context`, the store).
  const additionalParameters: Record<string, string> = {};
  for (const name of provider.def.oauth.callbackParams ?? []) {
    const value = callback.get(name);
    if (value === null) continue;
    if (value.length > 500) throw new TokenResponseError("invalid_request", `the callback's ${name} is too long`);
    additionalParameters[name] = value;
  }
  return callTokenEndpoint(provider, () =>
    oauth.authorizationCodeGrantRequest(provider.as, provider.client, provider.clientAuth, params, redirectUri(config), codeVerifier ?? oauth.nopkce, {
      ...provider.requestOptions,
      additionalParameters,
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    }),
  );
}

export async function refreshGrant(provider: Provider, refreshToken: string): Promise<NormalizedToken> {
  return callTokenEndpoint(provider, () =>
    oauth.refreshTokenGrantRequest(provider.as, provider.client, provider.clientAuth, refreshToken, {
      ...provider.requestOptions,
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    }),
  );
}

/** How much of a provider's error answer bearerFetchJson reads. */
const ERROR_BODY_LIMIT = 16 * 1024;

/** GETs (or `init.method`) `${apiUrl}${path}` with the bearer token; parsed JSON; throws on non-2xx. */
export function bearerFetchJson(apiUrl: string, accessToken: string) {
  return async (path: string, init: FetchInit = {}): Promise<any> => {
    const url = /^https?:\/\//.test(path) ? path : `${apiUrl}${path}`;
    const method = init.method ?? "GET";
    const response = await fetch(url, {
      method,
      body: init.body,
      headers: { authorization: `Bearer ${accessToken}`, accept: "application/json", "user-agent": "Switchyard", ...init.headers },
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
    if (!response.ok) {
      const error = new ProviderUnavailableError(`${method} ${new URL(url).pathname} answered HTTP ${response.status}`, response.status);
      // The provider's error answer, for connectors that branch on it (Dropbox's 409 `reset`):
      // bounded, parsed, and not enumerable, so no logger ever writes it out.
      // One byte over the limit read: a longer answer is not parsed (no body). Node's web streams
      // are async iterable; TypeScript's DOM typing of Response.body does not say so.
      const text = await readCapped(response.body as AsyncIterable<Uint8Array> | null, ERROR_BODY_LIMIT + 1);
      let body: unknown;
      try {
        body = text && Buffer.byteLength(text) <= ERROR_BODY_LIMIT ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      Object.defineProperty(error, "body", { value: body, enumerable: false });
      throw error;
    }
    return response.json();
  };
}

/**
 * What the provider says about who authorized, made storable: a NUL or an unpaired surrogate in a
 * login, a name or an id (src/text/storable.ts) is replaced, not a reason to fail the connection.
 * The external id is cleaned the same way as inbound events' routing ids, so the two still match.
 */
export async function readIdentity(provider: Provider, token: NormalizedToken, now: Date): Promise<ExternalIdentity> {
  const identity = await provider.def.readIdentity({
    now,
    accessToken: token.accessToken,
    token: token.raw,
    fetchJson: bearerFetchJson(provider.endpoints.apiUrl, token.accessToken),
    apiUrl: provider.endpoints.apiUrl,
  });
  return storableIdentity(identity);
}

/** An identity read by any means, made storable (see readIdentity). */
export function storableIdentity(identity: ExternalIdentity): ExternalIdentity {
  return {
    ...identity,
    externalId: storableText(identity.externalId),
    displayName: storableOptional(identity.displayName),
    cursor: storableOptional(identity.cursor),
    ...(identity.metadata ? { metadata: storableJson(identity.metadata).value } : {}),
  };
}

export { oauth };
