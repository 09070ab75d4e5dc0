/**
 * The part every fake provider shares: a real node:http server on 127.0.0.1:0 that runs an OAuth 2.0
 * authorization-code grant the way the providers do — an authorize page with Approve/Deny (or
 * auto-approve), single-use codes bound to client_id, redirect_uri and the PKCE S256 challenge, a
 * token endpoint with client authentication, refresh, and switches to make it fail — plus bearer
 * token checks for the identity APIs. What differs per provider (paths, wire formats, error
 * shapes) comes in through `ProviderProtocol`; each provider module is that data plus its API routes.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createHash, randomBytes } from "node:crypto";

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

export function jsonReply(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { "content-type": "application/json; charset=utf-8", ...headers }, body: JSON.stringify(value) };
}

export function htmlReply(status: number, html: string): Reply {
  return { status, headers: { "content-type": "text/html; charset=utf-8" }, body: html };
}

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

/** The identity is snapshotted into each grant at approval, so later `setIdentity` calls do not rewrite history. */
export interface Grant<I> {
  accessToken: string;
  refreshToken?: string;
  scopes: string[];
  /** ms epoch; undefined ⇒ never expires */
  expiresAt?: number;
  identity: I;
  clientId: string;
  grantType: "authorization_code" | "refresh_token";
  revoked: boolean;
  /** The authorize request this grant descends from (e.g. Google only issues refresh tokens for access_type=offline). */
  authorizeQuery: URLSearchParams;
}

export type TokenErrorKind =
  | "invalid_client"
  | "invalid_grant" // unknown, expired, reused or PKCE-mismatched code
  | "invalid_refresh_token"
  | "redirect_uri_mismatch"
  | "invalid_request"
  | "unsupported_grant_type";

export interface Route<I> {
  method: string;
  /** Exact path, or a RegExp whose groups are passed as params. */
  path: string | RegExp;
  /** Only the requests this takes (monday's one GraphQL path serves the identity and the webhooks); others go on to the next route. */
  when?(req: FakeRequest): boolean;
  handle(req: FakeRequest, ctx: RouteContext<I>, params: string[]): Reply | Promise<Reply>;
}

export interface RouteContext<I> {
  /** The grant behind `Authorization: Bearer <token>` (GitHub also accepts `token <token>`), if valid and unexpired. */
  authenticate(req: FakeRequest): Grant<I> | undefined;
  baseUrl: string;
}

export interface ProviderProtocol<I> {
  displayName: string;
  authorizePath: string;
  tokenPath: string;
  /** Authorize query parameters that carry scopes, in order of preference (Slack: user_scope, scope). */
  scopeParams: string[];
  requireResponseType: boolean;
  /** Google and Atlassian insist on redirect_uri in the exchange; GitHub and Slack check it only when sent. */
  requireRedirectUriOnExchange: boolean;
  clientAuthMethods: Array<"client_secret_basic" | "client_secret_post">;
  /** Atlassian documents JSON token requests; form bodies are accepted everywhere. */
  acceptJsonBody: boolean;
  accessTokenTtlSeconds?: number;
  /** none: no refresh tokens; keep: the same refresh token stays valid (Google); rotate: a new one each time. */
  refreshTokens: "none" | "keep" | "rotate";
  /** Extra authorize checks (e.g. Atlassian's audience); a message means "show an error page". */
  validateAuthorize?(query: URLSearchParams): string | undefined;
  tokenSuccess(grant: Grant<I>, req: FakeRequest): Reply;
  tokenError(kind: TokenErrorKind, description: string, req: FakeRequest): Reply;
  routes: Route<I>[];
}

export interface FakeOAuthOptions {
  clientId?: string;
  clientSecret?: string;
  /** Skip the Approve/Deny page: GET authorize redirects with a code at once. */
  autoApprove?: boolean;
  /** When set, only these redirect URIs are accepted (exact match); otherwise any http(s) URL. */
  redirectUris?: string[];
  /**
   * Added to the redirect with the code, and then required unchanged in the code exchange
   * (BigCommerce's `context` and `scope`: https://developer.bigcommerce.com/docs/integrations/apps/guide/auth).
   */
  callbackParams?: Record<string, string>;
}

export interface TokenRequestRecord {
  grantType: string;
  params: Record<string, string>;
  clientAuth: "client_secret_basic" | "client_secret_post" | "none";
  contentType: string;
}

interface PendingAuthorization {
  clientId: string;
  redirectUri: string;
  state: string | null;
  scopes: string[];
  codeChallenge: string | null;
  authorizeQuery: URLSearchParams;
}

interface IssuedCode<I> extends PendingAuthorization {
  identity: I;
  expiresAt: number;
  used: boolean;
  grants: Grant<I>[];
}

export interface FakeOAuthServer<I> {
  url: string;
  authorizeUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Every authorize request's query, in order (to assert scope, PKCE, extra params). */
  authorizeRequests: URLSearchParams[];
  tokenRequests: TokenRequestRecord[];
  grants: Grant<I>[];
  setIdentity(patch: Partial<I>): void;
  getIdentity(): I;
  setAutoApprove(on: boolean): void;
  allowRedirectUri(uri: string): void;
  /** Registers another OAuth app (e.g. an operator's own) alongside the default client. */
  registerClient(clientId: string, clientSecret: string): void;
  /** While on, the token endpoint answers 500 to everything. */
  failTokenEndpoint(on?: boolean): void;
  /** While on, every refresh is refused with the provider's invalid-grant error. */
  rejectRefreshTokens(on?: boolean): void;
  /** Make every issued access token expired now (identity calls answer 401) to exercise refresh. */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

const randomToken = (prefix: string) => `${prefix}${randomBytes(20).toString("base64url")}`;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Form or (where accepted) JSON body as a flat string map. */
function bodyParams(req: FakeRequest, acceptJson: boolean): Record<string, string> | undefined {
  const type = String(req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  const text = req.rawBody.toString("utf8");
  if (type === "application/x-www-form-urlencoded") return Object.fromEntries(new URLSearchParams(text));
  if (type === "application/json" && acceptJson) {
    try {
      const value: unknown = JSON.parse(text);
      if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function isAllowedRedirect(uri: string, allowed: Set<string> | undefined): boolean {
  if (allowed) return allowed.has(uri);
  try {
    const u = new URL(uri);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hash === "";
  } catch {
    return false;
  }
}

function redirectTo(target: string, params: Record<string, string | null>): Reply {
  const url = new URL(target);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return { status: 302, headers: { location: url.toString(), "cache-control": "no-store" }, body: "" };
}

export async function startFakeOAuthServer<I>(
  name: string,
  protocol: ProviderProtocol<I>,
  initialIdentity: I,
  options: FakeOAuthOptions = {},
): Promise<FakeOAuthServer<I>> {
  const clientId = options.clientId ?? `fake-${name}-client-id`;
  const clientSecret = options.clientSecret ?? `fake-${name}-client-secret`;
  const clients = new Map<string, string>([[clientId, clientSecret]]);
  let autoApprove = options.autoApprove ?? false;
  const allowedRedirects = options.redirectUris ? new Set(options.redirectUris) : undefined;
  let identity: I = { ...initialIdentity };
  let tokenEndpointFails = false;
  let refreshRejected = false;

  const pending = new Map<string, PendingAuthorization>();
  const codes = new Map<string, IssuedCode<I>>();
  const grants: Grant<I>[] = [];
  const byAccessToken = new Map<string, Grant<I>>();
  const byRefreshToken = new Map<string, Grant<I>>();
  const authorizeRequests: URLSearchParams[] = [];
  const tokenRequests: TokenRequestRecord[] = [];
  let baseUrl = "";

  function issueGrant(source: { clientId: string; scopes: string[]; identity: I; authorizeQuery: URLSearchParams }, grantType: Grant<I>["grantType"], keepRefresh?: string): Grant<I> {
    const ttl = protocol.accessTokenTtlSeconds;
    const grant: Grant<I> = {
      accessToken: randomToken(`${name}_at_`),
      scopes: source.scopes,
      expiresAt: ttl ? Date.now() + ttl * 1000 : undefined,
      identity: source.identity,
      clientId: source.clientId,
      grantType,
      revoked: false,
      authorizeQuery: source.authorizeQuery,
    };
    if (protocol.refreshTokens !== "none") {
      grant.refreshToken = keepRefresh ?? randomToken(`${name}_rt_`);
      byRefreshToken.set(grant.refreshToken, grant);
    }
    grants.push(grant);
    byAccessToken.set(grant.accessToken, grant);
    return grant;
  }

  const routeContext: RouteContext<I> = {
    authenticate(req) {
      const header = String(req.headers.authorization ?? "");
      const match = /^(?:Bearer|token)\s+(\S+)$/i.exec(header.trim());
      const grant = match ? byAccessToken.get(match[1]) : undefined;
      if (!grant || grant.revoked) return undefined;
      if (grant.expiresAt !== undefined && grant.expiresAt <= Date.now()) return undefined;
      return grant;
    },
    get baseUrl() {
      return baseUrl;
    },
  };

  function authorizeGet(req: FakeRequest): Reply {
    const q = req.query;
    authorizeRequests.push(new URLSearchParams(q));
    const requestClientId = q.get("client_id") ?? "";
    const redirectUri = q.get("redirect_uri") ?? "";
    // Like the real providers, a bad client or redirect URI is an error page, never a redirect.
    if (!clients.has(requestClientId)) return htmlReply(400, `<h1>${protocol.displayName}</h1><p>Unknown client_id.</p>`);
    if (!redirectUri || !isAllowedRedirect(redirectUri, allowedRedirects)) {
      return htmlReply(400, `<h1>${protocol.displayName}</h1><p>The redirect_uri is not registered for this application.</p>`);
    }
    if (protocol.requireResponseType && q.get("response_type") !== "code") {
      return htmlReply(400, `<h1>${protocol.displayName}</h1><p>response_type must be "code".</p>`);
    }
    const extra = protocol.validateAuthorize?.(q);
    if (extra) return htmlReply(400, `<h1>${protocol.displayName}</h1><p>${escapeHtml(extra)}</p>`);
    const challenge = q.get("code_challenge");
    if (challenge && q.get("code_challenge_method") !== "S256") {
      return htmlReply(400, `<h1>${protocol.displayName}</h1><p>Only code_challenge_method=S256 is supported.</p>`);
    }
    const scopeValue = protocol.scopeParams.map((p) => q.get(p)).find((v) => v) ?? "";
    const request: PendingAuthorization = {
      clientId: requestClientId,
      redirectUri,
      state: q.get("state"),
      scopes: scopeValue.split(/[\s,]+/).filter(Boolean),
      codeChallenge: challenge,
      authorizeQuery: new URLSearchParams(q),
    };
    if (autoApprove) return approve(request);
    const requestId = randomToken("req_");
    pending.set(requestId, request);
    const action = escapeHtml(protocol.authorizePath);
    return htmlReply(
      200,
      `<!doctype html><html><head><meta charset="utf-8"><title>Authorize – ${escapeHtml(protocol.displayName)} (fake)</title></head>
<body><main>
<h1>${escapeHtml(protocol.displayName)} (fake provider)</h1>
<p>The application <code>${escapeHtml(requestClientId)}</code> wants access to your account.</p>
<ul>${request.scopes.map((s) => `<li>${escapeHtml(s)}</li>`).join("")}</ul>
<form method="post" action="${action}">
<input type="hidden" name="request_id" value="${escapeHtml(requestId)}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
</main></body></html>`,
    );
  }

  function approve(request: PendingAuthorization): Reply {
    const code = randomToken(`${name}_code_`);
    codes.set(code, { ...request, identity: { ...identity }, expiresAt: Date.now() + 10 * 60_000, used: false, grants: [] });
    return redirectTo(request.redirectUri, { code, ...options.callbackParams, state: request.state });
  }

  function authorizePost(req: FakeRequest): Reply {
    const form = Object.fromEntries(new URLSearchParams(req.rawBody.toString("utf8")));
    const request = pending.get(form.request_id ?? "");
    if (!request) return htmlReply(400, `<h1>${protocol.displayName}</h1><p>This authorization request has expired.</p>`);
    pending.delete(form.request_id);
    if (form.decision === "approve") return approve(request);
    return redirectTo(request.redirectUri, { error: "access_denied", state: request.state });
  }

  function clientAuthentication(req: FakeRequest, params: Record<string, string>) {
    const header = String(req.headers.authorization ?? "");
    if (/^Basic\s+/i.test(header)) {
      const decoded = Buffer.from(header.replace(/^Basic\s+/i, ""), "base64").toString("utf8");
      const i = decoded.indexOf(":");
      // RFC 6749 §2.3.1: both halves are form-urlencoded before base64.
      const id = decodeURIComponent(decoded.slice(0, i).replace(/\+/g, " "));
      const secret = decodeURIComponent(decoded.slice(i + 1).replace(/\+/g, " "));
      return { method: "client_secret_basic" as const, id, secret };
    }
    if (params.client_secret !== undefined) {
      return { method: "client_secret_post" as const, id: params.client_id ?? "", secret: params.client_secret };
    }
    return { method: "none" as const, id: params.client_id ?? "", secret: "" };
  }

  function token(req: FakeRequest): Reply {
    if (tokenEndpointFails) return { status: 500, headers: { "content-type": "text/plain" }, body: "fake provider: token endpoint failure" };
    const params = bodyParams(req, protocol.acceptJsonBody);
    if (!params) return protocol.tokenError("invalid_request", "unsupported request body", req);
    const auth = clientAuthentication(req, params);
    // GitHub and Slack take no grant_type for the code exchange.
    const grantType = params.grant_type ?? (params.code ? "authorization_code" : "");
    tokenRequests.push({ grantType, params, clientAuth: auth.method, contentType: String(req.headers["content-type"] ?? "") });

    if (auth.method === "none" || !protocol.clientAuthMethods.includes(auth.method)) {
      return protocol.tokenError("invalid_client", "client authentication required", req);
    }
    if (!clients.has(auth.id) || clients.get(auth.id) !== auth.secret) {
      return protocol.tokenError("invalid_client", "the client_id or client_secret is incorrect", req);
    }

    if (grantType === "authorization_code") {
      const code = codes.get(params.code ?? "");
      if (!code || code.clientId !== auth.id || code.expiresAt <= Date.now()) {
        return protocol.tokenError("invalid_grant", "the code is incorrect or expired", req);
      }
      if (code.used) {
        // RFC 6749 §4.1.2: a replayed code revokes what it issued.
        for (const g of code.grants) g.revoked = true;
        return protocol.tokenError("invalid_grant", "the code has already been used", req);
      }
      if (params.redirect_uri !== undefined ? params.redirect_uri !== code.redirectUri : protocol.requireRedirectUriOnExchange) {
        return protocol.tokenError("redirect_uri_mismatch", "redirect_uri does not match the authorization request", req);
      }
      if (code.codeChallenge) {
        const verifier = params.code_verifier ?? "";
        const computed = createHash("sha256").update(verifier).digest("base64url");
        if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier) || computed !== code.codeChallenge) {
          return protocol.tokenError("invalid_grant", "code_verifier does not match the code_challenge", req);
        }
      }
      for (const [name, value] of Object.entries(options.callbackParams ?? {})) {
        if (params[name] !== value) return protocol.tokenError("invalid_request", `${name} must be sent back as the callback gave it`, req);
      }
      code.used = true;
      const grant = issueGrant(code, "authorization_code");
      code.grants.push(grant);
      return protocol.tokenSuccess(grant, req);
    }

    if (grantType === "refresh_token") {
      const previous = byRefreshToken.get(params.refresh_token ?? "");
      if (refreshRejected || !previous || previous.clientId !== auth.id || previous.revoked) {
        return protocol.tokenError("invalid_refresh_token", "the refresh token is invalid or revoked", req);
      }
      // Rotation retires the old refresh token; the old access token lives on until it expires.
      if (protocol.refreshTokens === "rotate") byRefreshToken.delete(previous.refreshToken!);
      const grant = issueGrant(previous, "refresh_token", protocol.refreshTokens === "keep" ? previous.refreshToken : undefined);
      return protocol.tokenSuccess(grant, req);
    }

    return protocol.tokenError("unsupported_grant_type", `grant_type ${grantType || "(missing)"} is not supported`, req);
  }

  async function dispatch(req: FakeRequest): Promise<Reply> {
    if (req.path === protocol.authorizePath && req.method === "GET") return authorizeGet(req);
    if (req.path === protocol.authorizePath && req.method === "POST") return authorizePost(req);
    if (req.path === protocol.tokenPath && req.method === "POST") return token(req);
    for (const route of protocol.routes) {
      if (route.method !== req.method || (route.when && !route.when(req))) continue;
      if (typeof route.path === "string") {
        if (route.path === req.path) return route.handle(req, routeContext, []);
      } else {
        const m = route.path.exec(req.path);
        // An optional group that did not match is "" (not "undefined").
        if (m) return route.handle(req, routeContext, m.slice(1).map((s) => (s === undefined ? "" : decodeURIComponent(s))));
      }
    }
    return jsonReply(404, { error: "not_found", path: req.path });
  }

  const server = createServer(async (incoming: IncomingMessage, res: ServerResponse) => {
    try {
      const url = new URL(incoming.url ?? "/", "http://fake");
      const reply = await dispatch({
        method: incoming.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        rawBody: await readBody(incoming),
      });
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`fake provider crashed: ${String(error)}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: baseUrl,
    authorizeUrl: `${baseUrl}${protocol.authorizePath}`,
    tokenUrl: `${baseUrl}${protocol.tokenPath}`,
    clientId,
    clientSecret,
    authorizeRequests,
    tokenRequests,
    grants,
    setIdentity(patch) {
      identity = { ...identity, ...patch };
    },
    getIdentity: () => ({ ...identity }),
    setAutoApprove(on) {
      autoApprove = on;
    },
    allowRedirectUri(uri) {
      allowedRedirects?.add(uri);
    },
    registerClient(id, secret) {
      clients.set(id, secret);
    },
    failTokenEndpoint(on = true) {
      tokenEndpointFails = on;
    },
    rejectRefreshTokens(on = true) {
      refreshRejected = on;
    },
    expireAccessTokens() {
      const past = Date.now() - 1000;
      for (const g of grants) g.expiresAt = past;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
