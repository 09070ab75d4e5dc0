/**
 * GitHub as a GitHub App: the end user installs the operator's app on their user or organization
 * account (choosing the repositories), and Switchyard acts as that installation with installation
 * tokens it mints itself. Events come from the app's one webhook, for every installation, routed by
 * `installation.id`. The trigger catalog is GitHub's (the `github` connector's list, less what is
 * polled with a user's own token: an installation has no "starred by me").
 * Facts: see `docs`.
 */
import { declareConnector } from "../../declaration.ts";
import github from "../github/index.ts";

const githubTriggers = github.triggers ?? [];
const polled = Object.keys(github.polling?.triggers ?? {});

export default declareConnector({
  name: "github_app",
  displayName: "GitHub App",
  category: "code",
  description: "Repositories and organizations that install your GitHub App: every repository and organization event, and API calls as the installation.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#24292f"/>' +
    '<rect x="5" y="5" width="6" height="6" rx="1.2" fill="#fff"/><rect x="13" y="5" width="6" height="6" rx="1.2" fill="#fff"/>' +
    '<rect x="5" y="13" width="6" height="6" rx="1.2" fill="#fff"/><path d="M16 13v6M13 16h6" stroke="#fff" stroke-width="1.8"/></svg>',
  docs: [
    "https://docs.github.com/en/apps/using-github-apps/installing-your-own-github-app",
    "https://docs.github.com/en/apps/creating-github-apps/registering-a-github-app/about-the-setup-url",
    "https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/generating-a-json-web-token-jwt-for-a-github-app",
    "https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/generating-an-installation-access-token-for-a-github-app",
    "https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/generating-a-user-access-token-for-a-github-app",
    "https://docs.github.com/en/rest/apps/apps#get-an-installation-for-the-authenticated-app",
    "https://docs.github.com/en/rest/apps/apps#create-an-installation-access-token-for-an-app",
    "https://docs.github.com/en/rest/apps/installations#list-app-installations-accessible-to-the-user-access-token",
    "https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries",
    "https://docs.github.com/en/webhooks/webhook-events-and-payloads#installation",
  ],
  authMode: "APP_INSTALLATION",
  // The user authorization GitHub runs during installation when the app has "Request user
  // authorization (OAuth) during installation" on: its `code` is exchanged here (client id and
  // secret) for a user token, used once to confirm the installation, then dropped.
  oauth: {
    authorizeUrl: "https://github.com/login/oauth/authorize",
    tokenUrl: "https://github.com/login/oauth/access_token",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  installation: {
    // "Installing your own GitHub App": https://github.com/apps/<app-slug>/installations/new; GitHub
    // passes `state` on to the setup URL (or the callback URL, with user authorization during install).
    installUrl: "https://github.com/apps/{slug}/installations/new",
    // POST /app/installations/{installation_id}/access_tokens with the app JWT: 201 {token, expires_at, permissions};
    // the token expires after one hour.
    accessToken: { method: "POST", path: "/app/installations/{installation_id}/access_tokens" },
    // GET /user/installations with a user access token: {total_count, installations: [{id, account, …}]};
    // one page of 100: an installation the user just made or configured is among their own.
    userInstallations: { path: "/user/installations", query: { per_page: "100" }, listPath: "installations" },
    // "installation" event, action "deleted": someone uninstalled the app.
    disconnectOn: ["installation_deleted"],
    // iat 60 s in the past, exp no more than 10 minutes ahead: 9 minutes in all.
    jwtLifetimeSeconds: 540,
  },
  identity: {
    // GET /app/installations/{installation_id} with the app JWT: the installation and its account.
    path: "/app/installations/{installation_id}",
    idPath: "id",
    displayNamePath: "account.login",
    metadata: { login: "account.login", accountId: "account.id", accountType: "account.type", targetType: "target_type", htmlUrl: "html_url" },
  },
  api: { baseUrl: "https://api.github.com", rateLimitHeaders: [{ header: "x-ratelimit-reset", value: "epoch_seconds" }] },
  webhook: {
    // The app's webhook secret; the same X-Hub-Signature-256 as repository webhooks.
    scheme: { type: "hmac", header: "x-hub-signature-256", algorithm: "sha256", encoding: "hex", prefix: "sha256=" },
    event: { header: "x-github-event", actionPath: "action" },
    // Every delivery to a GitHub App's webhook names the installation it is for.
    routing: ["installation.id"],
    deliveryId: { header: "x-github-delivery" },
    replayWindowSeconds: 3 * 86_400,
  },
  triggers: githubTriggers.filter((t) => !polled.includes(t.name)),
});
