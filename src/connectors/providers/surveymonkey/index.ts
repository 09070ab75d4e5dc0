/**
 * SurveyMonkey API v3: OAuth 2.0 authorization code (scopes are set on the app); access tokens are
 * long-lived and no refresh token is issued. The identity is `GET /v3/users/me`. Accounts in the EU and
 * Canada data centres use other API hosts; this declaration uses the US one. Connect only: webhooks are
 * created per account through the API with its token (per-account).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "surveymonkey",
  displayName: "SurveyMonkey",
  category: "forms",
  description: "Read the surveys and responses of a SurveyMonkey account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#00bf6f"/>' +
    '<path d="M6.5 12.5l3.5 3.5 7.5-8" fill="none" stroke="#fff" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developer.surveymonkey.com/api/v3/#authentication",
    "https://developer.surveymonkey.com/api/v3/#api-endpoints-get-users-me",
    "https://developer.surveymonkey.com/api/v3/#webhooks",
  ],
  oauth: {
    authorizeUrl: "https://api.surveymonkey.com/oauth/authorize",
    tokenUrl: "https://api.surveymonkey.com/oauth/token",
    apiUrl: "https://api.surveymonkey.com",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/v3/users/me",
    idPath: "id",
    displayNamePath: "username",
    metadata: { email: "email", accountType: "account_type" },
  },
});
