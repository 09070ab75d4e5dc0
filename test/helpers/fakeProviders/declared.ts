/**
 * A fake provider built from nothing but a connector's declaration: the OAuth 2.0 code grant on
 * the declared authorize/token paths, accepting ONLY the declared client authentication style,
 * scopes read from the declared parameter, refresh tokens exactly when the declaration says the
 * provider issues them, token answers in the declared shape (`okPath`, `tokenPath`), and the
 * identity endpoint at the declared method and path answering the declared id/name/metadata paths.
 * Every connector in the registry can run its connect flow against it, so new connectors are
 * covered without a hand-written fake.
 */
import type { ConnectorDefinition } from "../../../src/connectors/types.ts";
import { connectorEnvPrefix } from "../../../src/connectors/registry.ts";
import { jsonReply, startFakeOAuthServer, type FakeOAuthOptions, type FakeOAuthServer, type Grant, type Route } from "./oauthServer.ts";

export interface DeclaredIdentity {
  id: string;
  displayName: string;
  cursor: string;
}

/** For connectors whose identity is code (`identity.read`): what that code reads besides the declaration. */
export interface DeclaredProviderOptions extends FakeOAuthOptions {
  /** Members added to every token answer (Notion names the workspace there). */
  tokenExtras?: (identity: DeclaredIdentity) => Record<string, unknown>;
  /** More API routes, under `/api` (Xero's GET /connections). */
  routes?: Route<DeclaredIdentity>[];
  /** Routes matched before the identity endpoint, each with `when` (monday's GraphQL mutations share the identity's POST /v2). */
  before?: Route<DeclaredIdentity>[];
}

export interface FakeDeclaredProvider extends FakeOAuthServer<DeclaredIdentity> {
  /** CONNECTOR_<NAME>_* pointing Switchyard at this fake, with a service OAuth client. */
  env(): Record<string, string>;
  /** Requests that reached the identity endpoint (method and path). */
  identityRequests: Array<{ method: string; path: string; authorized: boolean }>;
}

/** Writes `value` at a declaration path (`data.viewer.id`; `[]` steps become one-element arrays). */
export function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const steps = path.split(".");
  let node: Record<string, unknown> = target;
  steps.forEach((raw, i) => {
    const each = raw.endsWith("[]");
    const key = each ? raw.slice(0, -2) : raw;
    const last = i === steps.length - 1;
    if (each) {
      const list = (node[key] as Record<string, unknown>[] | undefined) ?? [{}];
      node[key] = list;
      if (last) list[0] = value as Record<string, unknown>;
      else node = list[0];
    } else if (last) node[key] = value;
    else node = (node[key] as Record<string, unknown> | undefined) ?? (node[key] = {});
  });
}

/** Where a connector's change start (`changes.start`, code) POSTs for its first position, answered `{cursor}`: Dropbox's get_latest_cursor. */
const CHANGE_START_PATHS: Record<string, string> = { dropbox: "/files/list_folder/get_latest_cursor" };

/**
 * Connectors whose hosts name connection parameters (`https://{subdomain}.zendesk.com`) are served
 * under a path naming them instead: the CONNECTOR_<NAME>_* overrides keep the placeholders
 * (`http://127.0.0.1:port/{subdomain}/oauth/tokens`) and the fake answers only at the declared
 * examples' paths (`/acme/oauth/tokens`), so a flow that does not fill them fails.
 */
function tenantPaths(def: ConnectorDefinition): { filled: string; template: string } {
  // Path parameters (a GitLab project id) and optional ones (a Typeform form) name something inside the account, never the provider's host.
  const params = def.declaration.params.filter((p) => p.in === "host" && !p.optional);
  return { filled: params.map((p) => `/${p.example}`).join(""), template: params.map((p) => `/{${p.name}}`).join("") };
}

/** A declared URL's path, placeholders in its host dropped (`https://{shop}.myshopify.com/admin` → `/admin`). */
const pathOf = (template: string) => new URL(template.replace(/\{[a-z0-9_]+\}/g, "x")).pathname;

export async function startDeclaredProvider(def: ConnectorDefinition, opts: DeclaredProviderOptions = {}): Promise<FakeDeclaredProvider> {
  const decl = def.declaration;
  const { oauth, identity } = decl;
  if (!oauth || !identity) throw new Error(`${def.name} is never authorized (authMode ${def.authMode}): it has no provider to fake`);
  const { tokenResponse } = oauth;
  const tenant = tenantPaths(def);
  // Matched without its query string (e.g. `/v1/me?fields=id`).
  const identityPath = `${tenant.filled}/api${pathOf(decl.api!.baseUrl!).replace(/\/$/, "")}${(identity.path ?? "").split("?")[0]}`;
  const identityRequests: FakeDeclaredProvider["identityRequests"] = [];

  const tokenBody = (grant: Grant<DeclaredIdentity>): Record<string, unknown> => {
    const token: Record<string, unknown> = {
      access_token: grant.accessToken,
      token_type: "bearer",
      scope: grant.scopes.join(oauth.scopeSeparator),
      ...(grant.expiresAt ? { expires_in: Math.round((grant.expiresAt - Date.now()) / 1000) } : {}),
      ...(grant.refreshToken ? { refresh_token: grant.refreshToken } : {}),
      ...opts.tokenExtras?.(grant.identity),
    };
    // A nested token (Slack's authed_user) on the code exchange; refreshes answer at the top level.
    const body: Record<string, unknown> = tokenResponse.tokenPath && grant.grantType === "authorization_code" ? {} : { ...token };
    if (tokenResponse.tokenPath && grant.grantType === "authorization_code") setAt(body, tokenResponse.tokenPath, token);
    if (tokenResponse.okPath) setAt(body, tokenResponse.okPath, true);
    return body;
  };

  const server = await startFakeOAuthServer<DeclaredIdentity>(
    def.name,
    {
      displayName: def.displayName,
      // resolveEndpoints drops a trailing slash from overrides (Sentry declares /oauth/authorize/).
      authorizePath: `${tenant.filled}${pathOf(oauth.authorizeUrl).replace(/\/+$/, "")}`,
      tokenPath: `${tenant.filled}${pathOf(oauth.tokenUrl).replace(/\/+$/, "")}`,
      scopeParams: [oauth.scopeParam],
      requireResponseType: true,
      requireRedirectUriOnExchange: true,
      clientAuthMethods: [oauth.clientAuth],
      acceptJsonBody: false,
      accessTokenTtlSeconds: oauth.refresh ? 3600 : undefined,
      refreshTokens: oauth.refresh ? "rotate" : "none",
      tokenSuccess: (grant) => jsonReply(200, tokenBody(grant)),
      tokenError: (kind, description) =>
        tokenResponse.okPath ? jsonReply(200, { ok: false, error: kind }) : jsonReply(400, { error: kind, error_description: description }),
      routes: identity.path
        ? [
            ...(opts.before ?? []),
            {
              method: identity.method,
              path: identityPath,
              handle(req, ctx) {
                const grant = ctx.authenticate(req);
                identityRequests.push({ method: req.method, path: req.path, authorized: Boolean(grant) });
                if (!grant) return jsonReply(401, { error: "invalid_token" });
                const answer: Record<string, unknown> = {};
                const who = grant.identity;
                // Least important first: where paths coincide (Gmail's address is id, name and metadata), the id wins.
                for (const [key, path] of Object.entries(identity.metadata)) setAt(answer, path, `${key} of ${who.displayName}`);
                if (identity.displayNamePath) setAt(answer, identity.displayNamePath, who.displayName);
                if (identity.idPath) setAt(answer, identity.idPath, who.id);
                return jsonReply(200, answer);
              },
            },
            // Given routes first: a test's own fake of the change start's position wins.
            ...(opts.routes ?? []),
            // The connect-time position a connector's change start (code) asks for with a call of its own.
            ...(CHANGE_START_PATHS[def.name]
              ? [
                  {
                    method: "POST",
                    path: `${tenant.filled}/api${pathOf(decl.api!.baseUrl!).replace(/\/$/, "")}${CHANGE_START_PATHS[def.name]}`,
                    handle(req: Parameters<Route<DeclaredIdentity>["handle"]>[0], ctx: Parameters<Route<DeclaredIdentity>["handle"]>[1]) {
                      const grant = ctx.authenticate(req);
                      if (!grant) return jsonReply(401, { error: "invalid_token" });
                      return jsonReply(200, { cursor: grant.identity.cursor });
                    },
                  },
                ]
              : []),
          ]
        : (opts.routes ?? []),
    },
    { id: `${def.name}-user-1`, displayName: `${def.displayName} User`, cursor: "1000" },
    opts,
  );
  const prefix = connectorEnvPrefix(def);
  return Object.assign(server, {
    identityRequests,
    env: () => ({
      [`${prefix}AUTHORIZE_URL`]: `${server.url}${tenant.template}${pathOf(oauth.authorizeUrl).replace(/\/+$/, "")}`,
      [`${prefix}TOKEN_URL`]: `${server.url}${tenant.template}${pathOf(oauth.tokenUrl).replace(/\/+$/, "")}`,
      [`${prefix}API_URL`]: `${server.url}${tenant.template}/api${pathOf(decl.api!.baseUrl!).replace(/\/$/, "")}`,
      [`${prefix}CLIENT_ID`]: server.clientId,
      [`${prefix}CLIENT_SECRET`]: server.clientSecret,
    }),
  });
}
