/**
 * Canva Connect: OAuth 2.0 authorization code with PKCE (required, S256), HTTP Basic client
 * authentication, space-separated scopes; four-hour access tokens and single-use refresh tokens. The
 * identity is `GET /rest/v1/users/me` (user and team ids). No webhook section: Canva Connect's notifications
 * are not generally available webhooks.
 * Polled: designs are read on a schedule from the design list, most recently modified first
 * (`sort_by=modified_descending`).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "canva",
  displayName: "Canva",
  category: "design",
  description: "Read the designs and folders of a Canva user.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#7d2ae8"/>' +
    '<circle cx="12" cy="12" r="5" fill="none" stroke="#fff" stroke-width="2.2"/></svg>',
  docs: [
    "https://www.canva.dev/docs/connect/authentication/",
    "https://www.canva.dev/docs/connect/api-reference/users/users-me/",
    "https://www.canva.dev/docs/connect/appendix/scopes/",
    "https://www.canva.dev/docs/connect/api-reference/designs/list-designs/",
    "https://www.canva.dev/docs/connect/api-reference/authentication/revoke-token/",
  ],
  oauth: {
    authorizeUrl: "https://www.canva.com/api/oauth/authorize",
    tokenUrl: "https://api.canva.com/rest/v1/oauth/token",
    scopes: ["profile:read", "design:meta:read"],
    scopeDescriptions: {
      "profile:read": "Read your Canva display name",
      "design:meta:read": "Read the titles and details of your designs",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_basic",
    refresh: true,
    // canva.dev/docs/connect/api-reference/authentication/revoke-token/: the token as the form field
    // `token`, HTTP Basic with the client; a refresh token takes its lineage and the user's consent
    // with it. 200 with an empty JSON object.
    revocation: { url: "https://api.canva.com/rest/v1/oauth/revoke", method: "POST", tokenParam: "token", body: "form", clientAuth: "client_secret_basic", token: "refresh" },
  },
  identity: {
    path: "/rest/v1/users/me",
    idPath: "team_user.user_id",
    metadata: { teamId: "team_user.team_id" },
  },
  api: { baseUrl: "https://api.canva.com" },
  triggers: [
    {
      name: "design_modified",
      displayName: "Design created or modified",
      description: "A design the user owns or that was shared with them was created or edited (read from the design list on a schedule).",
      providerEvent: "GET /rest/v1/designs",
      // One design summary as the list answers it.
      samplePayload: {
        id: "DAFVztcvd9z",
        title: "My summer holiday",
        owner: { user_id: "auDAbliZ2rQNNOsUl5OLu", team_id: "Oi2RJILTrKk0KRhRUZozX" },
        thumbnail: { width: 595, height: 335, url: "https://document-export.canva.com/Vczz9/zF9vzVtdADc/2/thumbnail/0001.png" },
        urls: { edit_url: "https://www.canva.com/api/design/eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0/edit", view_url: "https://www.canva.com/api/design/eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0/view" },
        created_at: 1767258000,
        updated_at: 1767261600,
        page_count: 5,
      },
    },
  ],
  polling: {
    triggers: {
      // Most recently modified first; `updated_at` is a Unix time in seconds. 100 requests a minute per user.
      design_modified: {
        request: { path: "/rest/v1/designs", query: { ownership: "any", sort_by: "modified_descending" } },
        items: "items",
        id: "id",
        version: "updated_at",
        occurredAt: ["updated_at"],
        cursor: { from: "version" },
      },
    },
  },
});
