/**
 * Aircall technology partners: OAuth 2.0 authorization code with the single scope `public_api`;
 * access tokens do not expire. The identity is the integration the token belongs to
 * (`GET /v1/integrations/me`), which names the company. No webhook section: Aircall webhooks are created per
 * company through the API with its token (per-account), each with its own `token` in the payload.
 * Polled: the company's calls are read on a schedule from the call list (newest first, `from` the
 * newest start seen).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "aircall",
  displayName: "Aircall",
  category: "other",
  description: "Read the calls, numbers, users and contacts of an Aircall company.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#00b388"/>' +
    '<path d="M8 5l2.5 3-1.7 2a9 9 0 0 0 5.2 5.2l2-1.7 3 2.5-1.5 2.5C12 18.5 5.5 12 5.5 6.5z" fill="none" stroke="#fff" stroke-width="1.6" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developer.aircall.io/tutorials/how-aircall-oauth-flow-works/",
    "https://developer.aircall.io/api-references/#retrieve-integration-information",
    "https://developer.aircall.io/api-references/#webhooks",
    "https://developer.aircall.io/api-references/#list-all-calls",
    "https://developer.aircall.io/api-references/#rate-limiting",
  ],
  oauth: {
    authorizeUrl: "https://dashboard.aircall.io/oauth/authorize",
    tokenUrl: "https://api.aircall.io/v1/oauth/token",
    scopes: ["public_api"],
    scopeDescriptions: {
      public_api: "Read and change your Aircall calls, numbers, users and contacts",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/v1/integrations/me",
    idPath: "integration.company_id",
    displayNamePath: "integration.name",
    metadata: { status: "integration.status" },
  },
  api: { baseUrl: "https://api.aircall.io" },
  triggers: [
    {
      name: "call_created",
      displayName: "Call started",
      description: "A call was made or received on one of the company's numbers (read from the call list on a schedule; it may still be ringing or in progress).",
      providerEvent: "GET /v1/calls",
      // One call as the list answers it.
      samplePayload: {
        id: 812,
        direct_link: "https://api.aircall.io/v1/calls/812",
        direction: "inbound",
        status: "done",
        missed_call_reason: null,
        started_at: 1767261600,
        answered_at: 1767261605,
        ended_at: 1767261700,
        duration: 100,
        raw_digits: "+33 1 76 36 06 95",
        user: { id: 456, name: "Madeleine Crest", email: "madeleine@aircall.io" },
        number: { id: 123, name: "French Office", digits: "+33 1 76 36 06 95" },
        tags: [],
      },
    },
  ],
  polling: {
    triggers: {
      // `from` is a Unix time (seconds), as `started_at` is; newest first.
      call_created: {
        request: { path: "/v1/calls", query: { order: "desc", per_page: "50", from: "{cursor}" } },
        items: "calls",
        id: "id",
        version: "started_at",
        occurredAt: ["started_at"],
        cursor: { from: "version" },
      },
    },
  },
});
