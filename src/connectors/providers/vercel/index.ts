/**
 * Vercel (Sign in with Vercel): OAuth 2.0 / OpenID Connect authorization code with PKCE; scopes
 * `openid email profile offline_access`; one-hour access tokens and rotating 30-day refresh tokens. The
 * identity is the user info endpoint (`sub`). Connect only: Vercel integration webhooks belong to
 * marketplace integrations, which are installed through a per-integration URL rather than this flow.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "vercel",
  displayName: "Vercel",
  category: "code",
  description: "Identify a Vercel user and read their projects and deployments (Sign in with Vercel).",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#111111"/>' +
    '<path d="M12 6l7 12H5z" fill="#fff"/></svg>',
  docs: [
    "https://vercel.com/docs/sign-in-with-vercel/authorization-server-api",
    "https://vercel.com/docs/sign-in-with-vercel",
    "https://vercel.com/docs/webhooks/webhooks-api",
  ],
  oauth: {
    authorizeUrl: "https://vercel.com/oauth/authorize",
    tokenUrl: "https://api.vercel.com/login/oauth/token",
    scopes: ["openid", "email", "profile", "offline_access"],
    scopeDescriptions: {
      openid: "Confirm who you are on Vercel",
      email: "See your email address",
      profile: "See your name, username and avatar",
      offline_access: "Keep this access while you are away (until you revoke it)",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/login/oauth/userinfo",
    idPath: "sub",
    displayNamePath: "name",
    metadata: { email: "email", username: "preferred_username" },
  },
  api: { baseUrl: "https://api.vercel.com" },
});
