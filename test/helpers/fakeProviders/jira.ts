/**
 * Fake Atlassian (Jira Cloud): OAuth 2.0 3LO (auth.atlassian.com/authorize + /oauth/token),
 * `GET /oauth/token/accessible-resources` and `GET /me` (api.atlassian.com), and builders for
 * secret-signed Jira webhooks.
 *
 * Wire details kept from Atlassian: authorize requires `audience=api.atlassian.com` and
 * response_type=code; the token endpoint takes a JSON body (form bodies are accepted too); access
 * tokens last an hour and refresh tokens rotate (offline_access); a bad refresh token is a 403
 * `invalid_grant`.
 */
import { createHmac, randomUUID } from "node:crypto";
import { jsonReply, startFakeOAuthServer, type FakeOAuthOptions, type FakeOAuthServer, type Route, type TokenErrorKind } from "./oauthServer.ts";
import type { SignedRequest } from "./signedRequest.ts";

export interface FakeJiraSite {
  id: string; // cloudId
  url: string;
  name: string;
}

export interface FakeJiraIdentity {
  accountId: string;
  name: string;
  email: string;
  sites: FakeJiraSite[];
}

export interface FakeJiraOptions extends FakeOAuthOptions {
  identity?: Partial<FakeJiraIdentity>;
  webhookSecret?: string;
  /** More API routes (a story's dynamic-webhook API). */
  routes?: Route<FakeJiraIdentity>[];
}

export interface FakeJira extends FakeOAuthServer<FakeJiraIdentity> {
  apiUrl: string;
  webhookSecret: string;
  env(): Record<string, string>;
}

const ATLASSIAN_ERRORS: Record<TokenErrorKind, { status: number; error: string; description: string }> = {
  invalid_client: { status: 401, error: "access_denied", description: "Unauthorized" },
  invalid_grant: { status: 403, error: "invalid_grant", description: "Invalid authorization code" },
  invalid_refresh_token: { status: 403, error: "invalid_grant", description: "Unknown or invalid refresh token." },
  redirect_uri_mismatch: { status: 403, error: "invalid_grant", description: "redirect_uri does not match" },
  invalid_request: { status: 400, error: "invalid_request", description: "Invalid request" },
  unsupported_grant_type: { status: 400, error: "unsupported_grant_type", description: "Unsupported grant type" },
};

export async function startFakeJira(opts: FakeJiraOptions = {}): Promise<FakeJira> {
  const identity: FakeJiraIdentity = {
    accountId: "5b10ac8d82e05b22cc7d4ef5",
    name: "Alice Example",
    email: "alice@example.com",
    sites: [{ id: "1324a887-45db-1bf4-1e99-ef0ff456d421", url: "https://example.atlassian.net", name: "example" }],
    ...opts.identity,
  };
  const server = await startFakeOAuthServer<FakeJiraIdentity>(
    "jira",
    {
      displayName: "Atlassian",
      authorizePath: "/authorize",
      tokenPath: "/oauth/token",
      scopeParams: ["scope"],
      requireResponseType: true,
      requireRedirectUriOnExchange: true,
      clientAuthMethods: ["client_secret_post"],
      acceptJsonBody: true,
      accessTokenTtlSeconds: 3600,
      refreshTokens: "rotate",
      validateAuthorize: (q) => (q.get("audience") === "api.atlassian.com" ? undefined : "audience must be api.atlassian.com"),
      tokenSuccess: (grant) =>
        jsonReply(200, {
          access_token: grant.accessToken,
          expires_in: 3600,
          token_type: "Bearer",
          // Atlassian only issues a refresh token when offline_access was granted.
          ...(grant.scopes.includes("offline_access") && grant.refreshToken ? { refresh_token: grant.refreshToken } : {}),
          scope: grant.scopes.join(" "),
        }),
      tokenError: (kind) => {
        const e = ATLASSIAN_ERRORS[kind];
        return jsonReply(e.status, { error: e.error, error_description: e.description });
      },
      routes: [
        {
          method: "GET",
          path: "/oauth/token/accessible-resources",
          handle(req, ctx) {
            const grant = ctx.authenticate(req);
            if (!grant) return jsonReply(401, { code: 401, message: "Unauthorized" });
            return jsonReply(
              200,
              grant.identity.sites.map((s) => ({
                id: s.id,
                url: s.url,
                name: s.name,
                scopes: grant.scopes.filter((x) => x.includes("jira")),
                avatarUrl: "https://site-admin-avatar-cdn.prod.public.atl-paas.net/avatars/240/rocket.png",
              })),
            );
          },
        },
        {
          method: "GET",
          path: "/me",
          handle(req, ctx) {
            const grant = ctx.authenticate(req);
            if (!grant) return jsonReply(401, { code: 401, message: "Unauthorized" });
            if (!grant.scopes.includes("read:me")) return jsonReply(403, { code: 403, message: "Forbidden: read:me scope required" });
            const i = grant.identity;
            return jsonReply(200, {
              account_type: "atlassian",
              account_id: i.accountId,
              email: i.email,
              name: i.name,
              picture: "https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/default.png",
              account_status: "active",
              nickname: i.name.split(" ")[0],
              zoneinfo: "Europe/Paris",
              locale: "en-US",
              extended_profile: {},
            });
          },
        },
        ...(opts.routes ?? []),
      ],
    },
    identity,
    opts,
  );
  const webhookSecret = opts.webhookSecret ?? "fake-jira-webhook-secret";
  return Object.assign(server, {
    apiUrl: server.url,
    webhookSecret,
    env: () => ({
      CONNECTOR_JIRA_AUTHORIZE_URL: server.authorizeUrl,
      CONNECTOR_JIRA_TOKEN_URL: server.tokenUrl,
      CONNECTOR_JIRA_API_URL: server.url,
      CONNECTOR_JIRA_CLIENT_ID: server.clientId,
      CONNECTOR_JIRA_CLIENT_SECRET: server.clientSecret,
      CONNECTOR_JIRA_WEBHOOK_SECRET: webhookSecret,
    }),
  });
}

/** A Jira webhook as an admin webhook with a secret sends it; reuse `identifier` to simulate a retry. */
export function jiraWebhook(
  payload: Record<string, unknown>,
  secret: string,
  opts: { identifier?: string; retry?: number } = {},
): SignedRequest {
  const body = JSON.stringify(payload);
  return {
    headers: {
      "content-type": "application/json; charset=utf-8",
      "user-agent": "Atlassian Webhook HTTP Client",
      "x-atlassian-webhook-identifier": opts.identifier ?? randomUUID(),
      "x-atlassian-webhook-flow": "Primary",
      ...(opts.retry ? { "x-atlassian-webhook-retry": String(opts.retry) } : {}),
      "x-hub-signature": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
    },
    body,
  };
}

/** A `jira:issue_created` / `jira:issue_updated` payload. */
export function jiraIssuePayload(
  webhookEvent: "jira:issue_created" | "jira:issue_updated" | "jira:issue_deleted",
  opts: { accountId?: string; displayName?: string; issueKey?: string; issueId?: string; summary?: string; status?: string; timestamp?: number; site?: string } = {},
): Record<string, unknown> {
  const site = opts.site ?? "https://example.atlassian.net";
  const issueId = opts.issueId ?? "10001";
  const key = opts.issueKey ?? "OPS-17";
  const user = {
    self: `${site}/rest/api/2/user?accountId=${opts.accountId ?? "5b10ac8d82e05b22cc7d4ef5"}`,
    accountId: opts.accountId ?? "5b10ac8d82e05b22cc7d4ef5",
    avatarUrls: { "48x48": "https://secure.gravatar.com/avatar/x?d=mm&s=48" },
    displayName: opts.displayName ?? "Alice Example",
    active: true,
    timeZone: "Europe/Paris",
    accountType: "atlassian",
  };
  const updated = webhookEvent === "jira:issue_updated";
  return {
    timestamp: opts.timestamp ?? Date.now(),
    webhookEvent,
    issue_event_type_name: updated ? "issue_generic" : webhookEvent === "jira:issue_created" ? "issue_created" : "issue_deleted",
    user,
    issue: {
      id: issueId,
      self: `${site}/rest/api/2/issue/${issueId}`,
      key,
      fields: {
        summary: opts.summary ?? "Checkout page times out",
        issuetype: { id: "10004", name: "Bug", subtask: false },
        project: { id: "10000", key: key.split("-")[0], name: "Operations", projectTypeKey: "software" },
        status: { id: updated ? "3" : "10000", name: opts.status ?? (updated ? "In Progress" : "To Do"), statusCategory: { key: updated ? "indeterminate" : "new" } },
        priority: { id: "2", name: "High" },
        assignee: null,
        reporter: user,
        creator: user,
        created: "2026-01-01T10:00:00.000+0000",
        updated: updated ? "2026-01-01T11:00:00.000+0000" : "2026-01-01T10:00:00.000+0000",
        labels: [],
      },
    },
    ...(updated
      ? {
          changelog: {
            id: "10200",
            items: [{ field: "status", fieldtype: "jira", fieldId: "status", from: "10000", fromString: "To Do", to: "3", toString: "In Progress" }],
          },
        }
      : {}),
  };
}
