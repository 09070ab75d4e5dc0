/**
 * Fake Slack: OAuth v2 (slack.com/oauth/v2/authorize + api/oauth.v2.access), `auth.test`, and
 * builders for signed Events API requests.
 *
 * Wire details kept from Slack: every Web API answer is HTTP 200 with `ok` (errors are
 * `{ok:false, error}`); user-token scopes come in `user_scope` and the user token comes back in
 * `authed_user`; with `tokenRotation` tokens expire after 12 h and refresh (grant_type=refresh_token)
 * answers the new token at the top level with a new refresh token.
 */
import { createHmac } from "node:crypto";
import { jsonReply, startFakeOAuthServer, type FakeOAuthOptions, type FakeOAuthServer, type FakeRequest, type Grant, type RouteContext, type TokenErrorKind } from "./oauthServer.ts";
import type { SignedRequest } from "./signedRequest.ts";

export interface FakeSlackIdentity {
  userId: string;
  teamId: string;
  teamName: string;
  /** Workspace URL, as in auth.test. */
  teamUrl: string;
  userName: string;
}

export interface FakeSlackOptions extends FakeOAuthOptions {
  identity?: Partial<FakeSlackIdentity>;
  /** Slack token rotation: expiring tokens plus refresh tokens. Default false. */
  tokenRotation?: boolean;
  signingSecret?: string;
  appId?: string;
}

export interface FakeSlack extends FakeOAuthServer<FakeSlackIdentity> {
  apiUrl: string;
  signingSecret: string;
  env(): Record<string, string>;
}

const SLACK_ERRORS: Record<TokenErrorKind, string> = {
  invalid_client: "bad_client_secret",
  invalid_grant: "invalid_code",
  invalid_refresh_token: "invalid_refresh_token",
  redirect_uri_mismatch: "bad_redirect_uri",
  invalid_request: "invalid_arguments",
  unsupported_grant_type: "invalid_grant_type",
};

export async function startFakeSlack(opts: FakeSlackOptions = {}): Promise<FakeSlack> {
  const rotation = opts.tokenRotation ?? false;
  const appId = opts.appId ?? "A0FAKEAPP1";
  const identity: FakeSlackIdentity = {
    userId: "U2147483697",
    teamId: "T0001ABCD",
    teamName: "Example Workspace",
    teamUrl: "https://example-workspace.slack.com/",
    userName: "alice",
    ...opts.identity,
  };
  const authTest = (req: FakeRequest, ctx: RouteContext<FakeSlackIdentity>) => {
    const grant = ctx.authenticate(req);
    if (!grant) return jsonReply(200, { ok: false, error: "invalid_auth" });
    const i = grant.identity;
    return jsonReply(200, { ok: true, url: i.teamUrl, team: i.teamName, user: i.userName, team_id: i.teamId, user_id: i.userId, is_enterprise_install: false });
  };
  const server = await startFakeOAuthServer<FakeSlackIdentity>(
    "slack",
    {
      displayName: "Slack",
      authorizePath: "/oauth/v2/authorize",
      tokenPath: "/api/oauth.v2.access",
      scopeParams: ["user_scope", "scope"],
      requireResponseType: false,
      requireRedirectUriOnExchange: false,
      clientAuthMethods: ["client_secret_post", "client_secret_basic"],
      acceptJsonBody: false,
      accessTokenTtlSeconds: rotation ? 43_200 : undefined,
      refreshTokens: rotation ? "rotate" : "none",
      validateAuthorize: (q) => (q.get("scope") || q.get("user_scope") ? undefined : "Invalid permissions requested: no scope or user_scope."),
      tokenSuccess: (grant: Grant<FakeSlackIdentity>) => {
        const i = grant.identity;
        const team = { id: i.teamId, name: i.teamName };
        const expiry = grant.refreshToken ? { refresh_token: grant.refreshToken, expires_in: 43_200 } : {};
        if (grant.grantType === "refresh_token") {
          return jsonReply(200, { ok: true, app_id: appId, access_token: grant.accessToken, token_type: "user", scope: grant.scopes.join(","), ...expiry, team, enterprise: null, is_enterprise_install: false });
        }
        return jsonReply(200, {
          ok: true,
          app_id: appId,
          authed_user: { id: i.userId, scope: grant.scopes.join(","), access_token: grant.accessToken, token_type: "user", ...expiry },
          team,
          enterprise: null,
          is_enterprise_install: false,
        });
      },
      tokenError: (kind) => jsonReply(200, { ok: false, error: SLACK_ERRORS[kind] }),
      routes: [
        { method: "GET", path: "/api/auth.test", handle: authTest },
        { method: "POST", path: "/api/auth.test", handle: authTest },
      ],
    },
    identity,
    opts,
  );
  const signingSecret = opts.signingSecret ?? "fake-slack-signing-secret";
  const apiUrl = `${server.url}/api`;
  return Object.assign(server, {
    apiUrl,
    signingSecret,
    env: () => ({
      CONNECTOR_SLACK_AUTHORIZE_URL: server.authorizeUrl,
      CONNECTOR_SLACK_TOKEN_URL: server.tokenUrl,
      CONNECTOR_SLACK_API_URL: apiUrl,
      CONNECTOR_SLACK_CLIENT_ID: server.clientId,
      CONNECTOR_SLACK_CLIENT_SECRET: server.clientSecret,
      CONNECTOR_SLACK_WEBHOOK_SECRET: signingSecret,
    }),
  });
}

/**
 * An Events API request as Slack sends it, signed with the signing secret. `timestamp` (unix
 * seconds or a Date) defaults to now — set it to test the 5-minute window; `retryNum` adds Slack's
 * retry headers (the body, and so event_id, stays the same).
 */
export function slackEvent(
  payload: Record<string, unknown>,
  signingSecret: string,
  opts: { timestamp?: number | Date; retryNum?: number } = {},
): SignedRequest {
  const body = JSON.stringify(payload);
  const ts = opts.timestamp instanceof Date ? Math.floor(opts.timestamp.getTime() / 1000) : (opts.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = createHmac("sha256", signingSecret).update(`v0:${ts}:${body}`).digest("hex");
  return {
    headers: {
      "content-type": "application/json",
      "user-agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
      "x-slack-request-timestamp": String(ts),
      "x-slack-signature": `v0=${signature}`,
      ...(opts.retryNum ? { "x-slack-retry-num": String(opts.retryNum), "x-slack-retry-reason": "http_timeout" } : {}),
    },
    body,
  };
}

export function slackUrlVerification(challenge = "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"): Record<string, unknown> {
  return { token: "Jhj5dZrVaK7ZwHHjRyZWjbDl", challenge, type: "url_verification" };
}

interface SlackEnvelopeOptions {
  teamId?: string;
  eventId?: string;
  eventTime?: number;
  /** The users the event is delivered for (authorizations[].user_id). */
  authorizedUserIds?: string[];
  appId?: string;
}

function envelope(event: Record<string, unknown>, o: SlackEnvelopeOptions): Record<string, unknown> {
  const teamId = o.teamId ?? "T0001ABCD";
  return {
    token: "XXYYZZ",
    team_id: teamId,
    api_app_id: o.appId ?? "A0FAKEAPP1",
    event,
    type: "event_callback",
    event_id: o.eventId ?? `Ev${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    event_time: o.eventTime ?? Math.floor(Date.now() / 1000),
    authorizations: (o.authorizedUserIds ?? []).map((userId) => ({
      enterprise_id: null,
      team_id: teamId,
      user_id: userId,
      is_bot: false,
      is_enterprise_install: false,
    })),
    is_ext_shared_channel: false,
    event_context: "4-eyJldCI6Im1lc3NhZ2UiLCJ0aWQiOiJUMDAwMUFCQ0QifQ",
  };
}

/** event_callback for a plain `message` (pass `subtype` to build an edit/join/bot message instead). */
export function slackMessageEvent(
  opts: SlackEnvelopeOptions & { userId?: string; text?: string; channel?: string; ts?: string; subtype?: string } = {},
): Record<string, unknown> {
  const ts = opts.ts ?? `${Math.floor(Date.now() / 1000)}.000200`;
  const userId = opts.userId ?? "U2147483697";
  return envelope(
    {
      type: "message",
      ...(opts.subtype ? { subtype: opts.subtype } : {}),
      channel: opts.channel ?? "C024BE91L",
      user: userId,
      text: opts.text ?? "Hello world",
      ts,
      event_ts: ts,
      channel_type: "channel",
    },
    { authorizedUserIds: [userId], ...opts },
  );
}

/** event_callback for `reaction_added`. */
export function slackReactionEvent(
  opts: SlackEnvelopeOptions & { userId?: string; reaction?: string; itemUserId?: string; channel?: string; itemTs?: string } = {},
): Record<string, unknown> {
  const userId = opts.userId ?? "U2147483697";
  const eventTs = `${Math.floor(Date.now() / 1000)}.000300`;
  return envelope(
    {
      type: "reaction_added",
      user: userId,
      reaction: opts.reaction ?? "thumbsup",
      item_user: opts.itemUserId ?? "U0G9QF9C6",
      item: { type: "message", channel: opts.channel ?? "C024BE91L", ts: opts.itemTs ?? "1767261600.000200" },
      event_ts: eventTs,
    },
    { authorizedUserIds: [userId], ...opts },
  );
}
