/**
 * Fake GitHub: OAuth app web flow (github.com/login/oauth/*), `GET /user` on the REST API (served
 * under /api/v3 like GitHub Enterprise Server), and builders for signed webhook deliveries.
 *
 * Wire details kept from GitHub: the token endpoint answers JSON only when asked
 * (`Accept: application/json`), form-encoded otherwise; errors come back as HTTP 200 with
 * `error`/`error_description`/`error_uri`; `scope` is comma-separated; a failed refresh is
 * `bad_refresh_token`. Tokens do not expire unless `expiringTokens` (GitHub App user tokens:
 * 8 h access, rotating refresh token).
 */
import { createHmac, randomUUID } from "node:crypto";
import type { SignedRequest } from "./signedRequest.ts";
import { jsonReply, startFakeOAuthServer, type FakeOAuthOptions, type FakeOAuthServer, type Reply, type TokenErrorKind } from "./oauthServer.ts";

export interface FakeGitHubUser {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
}

export interface FakeGitHubOptions extends FakeOAuthOptions {
  user?: Partial<FakeGitHubUser>;
  /** GitHub App style expiring user tokens with refresh tokens. Default false (OAuth app tokens never expire). */
  expiringTokens?: boolean;
  webhookSecret?: string;
}

export interface FakeGitHub extends FakeOAuthServer<FakeGitHubUser> {
  apiUrl: string;
  webhookSecret: string;
  /** Every accepted "Delete an app authorization" request, in order. */
  revocations: { clientId: string; accessToken: string }[];
  /** CONNECTOR_GITHUB_* variables pointing Switchyard at this fake. */
  env(): Record<string, string>;
}

const GITHUB_ERRORS: Record<TokenErrorKind, { error: string; description: string }> = {
  invalid_client: { error: "incorrect_client_credentials", description: "The client_id and/or client_secret passed are incorrect." },
  invalid_grant: { error: "bad_verification_code", description: "The code passed is incorrect or expired." },
  invalid_refresh_token: { error: "bad_refresh_token", description: "The refresh token passed is incorrect or expired." },
  redirect_uri_mismatch: { error: "redirect_uri_mismatch", description: "The redirect_uri MUST match the registered callback URL for this application." },
  invalid_request: { error: "invalid_request", description: "The request is malformed." },
  unsupported_grant_type: { error: "unsupported_grant_type", description: "The grant type is not supported." },
};

/** JSON if the client asked for it, application/x-www-form-urlencoded otherwise — GitHub's content negotiation. */
function githubBody(acceptHeader: string | string[] | undefined, value: Record<string, string | number>): Reply {
  if (String(acceptHeader ?? "").includes("application/json")) return jsonReply(200, value);
  const form = new URLSearchParams(Object.entries(value).map(([k, v]) => [k, String(v)]));
  return { status: 200, headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" }, body: form.toString() };
}

export async function startFakeGitHub(opts: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const expiring = opts.expiringTokens ?? false;
  const user: FakeGitHubUser = { id: 583231, login: "octocat", name: "The Octocat", email: "octocat@example.com", ...opts.user };
  const revocations: { clientId: string; accessToken: string }[] = [];
  const server = await startFakeOAuthServer<FakeGitHubUser>(
    "github",
    {
      displayName: "GitHub",
      authorizePath: "/login/oauth/authorize",
      tokenPath: "/login/oauth/access_token",
      scopeParams: ["scope"],
      requireResponseType: false,
      requireRedirectUriOnExchange: false,
      clientAuthMethods: ["client_secret_post", "client_secret_basic"],
      acceptJsonBody: true,
      accessTokenTtlSeconds: expiring ? 28_800 : undefined,
      refreshTokens: expiring ? "rotate" : "none",
      tokenSuccess: (grant, req) =>
        githubBody(req.headers.accept, {
          access_token: grant.accessToken,
          token_type: "bearer",
          scope: grant.scopes.join(","),
          ...(grant.refreshToken
            ? { expires_in: 28_800, refresh_token: grant.refreshToken, refresh_token_expires_in: 15_897_600 }
            : {}),
        }),
      tokenError: (kind, _description, req) => {
        const e = GITHUB_ERRORS[kind];
        return githubBody(req.headers.accept, {
          error: e.error,
          error_description: e.description,
          error_uri: "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors",
        });
      },
      routes: [
        {
          // "Delete an app authorization" (docs.github.com/en/rest/apps/oauth-applications#delete-an-app-authorization):
          // HTTP Basic client_id:client_secret, JSON {"access_token"}; 204, and every token of that grant stops working.
          method: "DELETE",
          path: /^\/api\/v3\/applications\/([^/]+)\/grant$/,
          handle(req, _ctx, [clientId]) {
            const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ""))?.[1];
            const [id, secret] = basic ? Buffer.from(basic, "base64").toString("utf8").split(":") : [];
            if (id !== clientId || id !== server.clientId || secret !== server.clientSecret) {
              return jsonReply(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest/apps/oauth-applications#delete-an-app-authorization", status: "404" });
            }
            let token: unknown;
            try {
              token = (JSON.parse(req.rawBody.toString("utf8")) as { access_token?: unknown }).access_token;
            } catch {
              token = undefined;
            }
            if (typeof token !== "string") return jsonReply(422, { message: "Invalid request.", status: "422" });
            const grant = server.grants.find((g) => g.accessToken === token && g.clientId === clientId);
            if (!grant) return jsonReply(404, { message: "Not Found", status: "404" });
            for (const g of server.grants) if (g.clientId === clientId && g.identity.id === grant.identity.id) g.revoked = true;
            revocations.push({ clientId, accessToken: token });
            return { status: 204, headers: {}, body: "" };
          },
        },
        {
          method: "GET",
          path: "/api/v3/user",
          handle(req, ctx) {
            const grant = ctx.authenticate(req);
            if (!grant) {
              return jsonReply(401, { message: "Bad credentials", documentation_url: "https://docs.github.com/rest", status: "401" });
            }
            const u = grant.identity;
            return jsonReply(
              200,
              {
                login: u.login,
                id: u.id,
                node_id: Buffer.from(`04:User${u.id}`).toString("base64"),
                avatar_url: `https://avatars.githubusercontent.com/u/${u.id}?v=4`,
                html_url: `https://github.com/${u.login}`,
                type: "User",
                site_admin: false,
                name: u.name,
                email: u.email,
              },
              { "x-oauth-scopes": grant.scopes.join(", ") },
            );
          },
        },
      ],
    },
    user,
    opts,
  );
  const webhookSecret = opts.webhookSecret ?? "fake-github-webhook-secret";
  const apiUrl = `${server.url}/api/v3`;
  return Object.assign(server, {
    apiUrl,
    webhookSecret,
    revocations,
    env: () => ({
      CONNECTOR_GITHUB_AUTHORIZE_URL: server.authorizeUrl,
      CONNECTOR_GITHUB_TOKEN_URL: server.tokenUrl,
      CONNECTOR_GITHUB_API_URL: apiUrl,
      CONNECTOR_GITHUB_REVOCATION_URL: `${apiUrl}/applications/{clientId}/grant`,
      CONNECTOR_GITHUB_CLIENT_ID: server.clientId,
      CONNECTOR_GITHUB_CLIENT_SECRET: server.clientSecret,
      CONNECTOR_GITHUB_WEBHOOK_SECRET: webhookSecret,
    }),
  });
}

/** A webhook delivery exactly as GitHub sends it; pass the same deliveryId to simulate a redelivery. */
export function githubWebhook(
  event: string,
  payload: Record<string, unknown>,
  secret: string,
  opts: { deliveryId?: string; hookId?: string } = {},
): SignedRequest {
  const body = JSON.stringify(payload);
  const sha256 = createHmac("sha256", secret).update(body).digest("hex");
  const sha1 = createHmac("sha1", secret).update(body).digest("hex");
  return {
    headers: {
      "content-type": "application/json",
      "user-agent": "GitHub-Hookshot/044aadd",
      "x-github-event": event,
      "x-github-delivery": opts.deliveryId ?? randomUUID(),
      "x-github-hook-id": opts.hookId ?? "292430182",
      "x-hub-signature": `sha1=${sha1}`,
      "x-hub-signature-256": `sha256=${sha256}`,
    },
    body,
  };
}

export interface GitHubActor {
  id: number;
  login: string;
}

interface GitHubPayloadOptions {
  sender?: GitHubActor;
  /** Repository owner; defaults to the sender. */
  owner?: GitHubActor;
  repo?: string;
  number?: number;
  title?: string;
  body?: string;
}

const defaultActor: GitHubActor = { id: 583231, login: "octocat" };

function account(a: GitHubActor) {
  return {
    login: a.login,
    id: a.id,
    node_id: Buffer.from(`04:User${a.id}`).toString("base64"),
    avatar_url: `https://avatars.githubusercontent.com/u/${a.id}?v=4`,
    html_url: `https://github.com/${a.login}`,
    type: "User",
    site_admin: false,
  };
}

function repository(owner: GitHubActor, name: string) {
  return {
    id: 1296269,
    node_id: "MDEwOlJlcG9zaXRvcnkxMjk2MjY5",
    name,
    full_name: `${owner.login}/${name}`,
    private: false,
    owner: account(owner),
    html_url: `https://github.com/${owner.login}/${name}`,
    default_branch: "main",
  };
}

function issueObject(o: Required<Pick<GitHubPayloadOptions, "number" | "title">> & { body: string; owner: GitHubActor; repo: string; author: GitHubActor; closed: boolean }) {
  return {
    url: `https://api.github.com/repos/${o.owner.login}/${o.repo}/issues/${o.number}`,
    html_url: `https://github.com/${o.owner.login}/${o.repo}/issues/${o.number}`,
    id: 1_000_000 + o.number,
    node_id: "I_kwDOABCDEF",
    number: o.number,
    title: o.title,
    user: account(o.author),
    labels: [{ id: 208045946, name: "bug", color: "f29513", default: true }],
    state: o.closed ? "closed" : "open",
    locked: false,
    comments: 0,
    created_at: "2026-01-01T10:00:00Z",
    updated_at: o.closed ? "2026-01-02T09:30:00Z" : "2026-01-01T10:00:00Z",
    closed_at: o.closed ? "2026-01-02T09:30:00Z" : null,
    author_association: "OWNER",
    body: o.body,
  };
}

/** `issues` webhook payload (action opened or closed). */
export function githubIssuesPayload(action: "opened" | "closed" | "edited", opts: GitHubPayloadOptions = {}): Record<string, unknown> {
  const sender = opts.sender ?? defaultActor;
  const owner = opts.owner ?? sender;
  const repo = opts.repo ?? "Hello-World";
  return {
    action,
    issue: issueObject({ number: opts.number ?? 42, title: opts.title ?? "Found a bug", body: opts.body ?? "The build fails.", owner, repo, author: sender, closed: action === "closed" }),
    repository: repository(owner, repo),
    sender: account(sender),
  };
}

/** `issue_comment` webhook payload (action created). */
export function githubIssueCommentPayload(opts: GitHubPayloadOptions & { comment?: string } = {}): Record<string, unknown> {
  const sender = opts.sender ?? defaultActor;
  const owner = opts.owner ?? sender;
  const repo = opts.repo ?? "Hello-World";
  const number = opts.number ?? 42;
  return {
    action: "created",
    issue: issueObject({ number, title: opts.title ?? "Found a bug", body: opts.body ?? "The build fails.", owner, repo, author: owner, closed: false }),
    comment: {
      url: `https://api.github.com/repos/${owner.login}/${repo}/issues/comments/1362934389`,
      html_url: `https://github.com/${owner.login}/${repo}/issues/${number}#issuecomment-1362934389`,
      id: 1362934389,
      user: account(sender),
      created_at: "2026-01-01T11:15:00Z",
      updated_at: "2026-01-01T11:15:00Z",
      author_association: "CONTRIBUTOR",
      body: opts.comment ?? "Reproduced on main.",
    },
    repository: repository(owner, repo),
    sender: account(sender),
  };
}

/** `pull_request` webhook payload (action opened). */
export function githubPullRequestPayload(opts: GitHubPayloadOptions = {}): Record<string, unknown> {
  const sender = opts.sender ?? defaultActor;
  const owner = opts.owner ?? sender;
  const repo = opts.repo ?? "Hello-World";
  const number = opts.number ?? 43;
  return {
    action: "opened",
    number,
    pull_request: {
      url: `https://api.github.com/repos/${owner.login}/${repo}/pulls/${number}`,
      id: 279147437,
      html_url: `https://github.com/${owner.login}/${repo}/pull/${number}`,
      number,
      state: "open",
      locked: false,
      title: opts.title ?? "Fix the build",
      user: account(sender),
      body: opts.body ?? "Closes #42.",
      created_at: "2026-01-01T12:00:00Z",
      updated_at: "2026-01-01T12:00:00Z",
      draft: false,
      head: { label: `${sender.login}:fix`, ref: "fix", sha: "6dcb09b5b57875f334f61aebed695e2e4193db5e" },
      base: { label: `${owner.login}:main`, ref: "main", sha: "9049f1265b7d61be4a8904a9a27120d2064dab3b" },
    },
    repository: repository(owner, repo),
    sender: account(sender),
  };
}
