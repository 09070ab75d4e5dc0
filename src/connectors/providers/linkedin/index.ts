/**
 * LinkedIn: OAuth 2.0 authorization code (three-legged), client credentials in the body, scopes
 * `openid profile email`; access tokens last 60 days and refresh tokens are issued only to approved
 * partners. The identity is the OpenID Connect user info (`sub`). Connect only: LinkedIn has no webhooks
 * for members' data outside its partner programmes.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "linkedin",
  displayName: "LinkedIn",
  category: "marketing",
  description: "Identify a LinkedIn member (Sign In with LinkedIn using OpenID Connect).",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0a66c2"/>' +
    '<circle cx="9" cy="10" r="2.3" fill="none" stroke="#fff" stroke-width="1.6"/><circle cx="15.5" cy="10" r="2.3" fill="none" stroke="#fff" stroke-width="1.6"/><path d="M5 17c.8-2.2 2.2-3.2 4-3.2s3.2 1 4 3.2M12.5 15c.7-.9 1.7-1.2 3-1.2 1.8 0 3.2 1 3.8 3.2" fill="none" stroke="#fff" stroke-width="1.6" stroke-linecap="round"/></svg>',
  docs: [
    "https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow",
    "https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2",
    "https://learn.microsoft.com/en-us/linkedin/shared/authentication/programmatic-refresh-tokens",
  ],
  oauth: {
    authorizeUrl: "https://www.linkedin.com/oauth/v2/authorization",
    tokenUrl: "https://www.linkedin.com/oauth/v2/accessToken",
    scopes: ["openid", "profile", "email"],
    scopeDescriptions: {
      openid: "Confirm who you are on LinkedIn",
      profile: "See your name and photo",
      email: "See your primary email address",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/v2/userinfo",
    idPath: "sub",
    displayNamePath: "name",
    metadata: { email: "email" },
  },
  api: { baseUrl: "https://api.linkedin.com" },
});
