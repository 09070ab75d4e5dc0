/**
 * Salesloft: OAuth 2.0 authorization code (scopes are set on the app), access tokens with refresh
 * tokens. The identity is the authorizing user (`GET /v2/me`). No webhook section: Salesloft webhook
 * subscriptions are created per team through the API with its token (per-account).
 * Polled: people are read on a schedule from the people list, newest change first (`updated_at[gt]`
 * the newest seen).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "salesloft",
  displayName: "Salesloft",
  category: "crm",
  description: "Read the people, cadences and activities of a Salesloft team.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0c6a48"/>' +
    '<circle cx="9" cy="10" r="2.3" fill="none" stroke="#fff" stroke-width="1.6"/><circle cx="15.5" cy="10" r="2.3" fill="none" stroke="#fff" stroke-width="1.6"/><path d="M5 17c.8-2.2 2.2-3.2 4-3.2s3.2 1 4 3.2M12.5 15c.7-.9 1.7-1.2 3-1.2 1.8 0 3.2 1 3.8 3.2" fill="none" stroke="#fff" stroke-width="1.6" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.salesloft.com/docs/platform/api-basics/oauth-authentication/",
    "https://developers.salesloft.com/docs/api/me-find/",
    "https://developers.salesloft.com/docs/platform/webhooks/",
    "https://developers.salesloft.com/docs/api/people-index/",
    "https://developers.salesloft.com/docs/platform/api-basics/filtering-paging-sorting/",
  ],
  oauth: {
    authorizeUrl: "https://accounts.salesloft.com/oauth/authorize",
    tokenUrl: "https://accounts.salesloft.com/oauth/token",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/v2/me",
    idPath: "data.id",
    displayNamePath: "data.name",
    metadata: { email: "data.email", guid: "data.guid" },
  },
  api: { baseUrl: "https://api.salesloft.com" },
  triggers: [
    {
      name: "person_updated",
      displayName: "Person created or updated",
      description: "A person (prospect) was created or changed, read from the people list on a schedule.",
      providerEvent: "GET /v2/people",
      // One person as the list answers it.
      samplePayload: {
        id: 1,
        created_at: "2026-01-01T09:00:00.000000-05:00",
        updated_at: "2026-01-01T10:00:00.000000-05:00",
        first_name: "Steve",
        last_name: "Martin",
        display_name: "Steve Martin",
        email_address: "steve@example.com",
        title: "Head of Sales",
        phone: "+1 404 555 0100",
        city: "Atlanta",
        account: { _href: "https://api.salesloft.com/v2/accounts/1", id: 1 },
        owner: { _href: "https://api.salesloft.com/v2/users/1", id: 1 },
      },
    },
  ],
  polling: {
    triggers: {
      // Filters take `updated_at[gt]`; newest change first, 100 a page at most.
      person_updated: {
        request: {
          path: "/v2/people",
          query: { per_page: "100", sort_by: "updated_at", sort_direction: "DESC", "updated_at[gt]": "{cursor}" },
        },
        items: "data",
        id: "id",
        version: "updated_at",
        occurredAt: ["updated_at"],
        cursor: { from: "version" },
      },
    },
  },
});
