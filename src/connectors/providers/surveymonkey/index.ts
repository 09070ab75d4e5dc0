/**
 * SurveyMonkey API v3: OAuth 2.0 authorization code (scopes are set on the app); access tokens are
 * long-lived and no refresh token is issued. The identity is `GET /v3/users/me`. Accounts in the EU and
 * Canada data centres use other API hosts; this declaration uses the US one. No webhook section: webhooks are
 * created per account through the API with its token (per-account).
 * Polled: surveys are read on a schedule from the survey list, newest change first
 * (`start_modified_at` the newest seen).
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
    "https://developer.surveymonkey.com/api/v3/#api-endpoints-get-surveys",
    "https://developer.surveymonkey.com/api/v3/#request-and-response-limits",
  ],
  oauth: {
    authorizeUrl: "https://api.surveymonkey.com/oauth/authorize",
    tokenUrl: "https://api.surveymonkey.com/oauth/token",
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
  api: { baseUrl: "https://api.surveymonkey.com" },
  triggers: [
    {
      name: "survey_modified",
      displayName: "Survey created or modified",
      description: "A survey was created or changed, read from the survey list on a schedule.",
      providerEvent: "GET /v3/surveys",
      // One survey as the list answers it (with `include=date_modified,date_created`).
      samplePayload: {
        id: "123456789",
        title: "Customer Satisfaction Survey",
        nickname: "Q1 CSAT",
        href: "https://api.surveymonkey.com/v3/surveys/123456789",
        date_created: "2026-01-01T09:00:00",
        date_modified: "2026-01-01T10:00:00",
      },
    },
  ],
  polling: {
    // Draft apps may make 500 requests a day: one read every five minutes per account.
    minIntervalSeconds: 300,
    triggers: {
      survey_modified: {
        request: {
          path: "/v3/surveys",
          query: {
            per_page: "100",
            sort_by: "date_modified",
            sort_order: "DESC",
            include: "date_modified,date_created",
            start_modified_at: "{cursor}",
          },
        },
        items: "data",
        id: "id",
        version: "date_modified",
        occurredAt: ["date_modified"],
        cursor: { from: "version" },
      },
    },
  },
});
