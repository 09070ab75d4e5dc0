/**
 * Airtable with a personal access token (Builder Hub → Personal access tokens) instead of OAuth:
 * `Authorization: Bearer <token>`, the same Web API as the `airtable` connector. The token is
 * checked with `GET /v0/meta/whoami` (the user's `id`; `email` only when the token has the
 * `user.email:read` scope). Connect only.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "airtable_pat",
  displayName: "Airtable (personal access token)",
  category: "docs",
  description: "Read and write the bases an Airtable personal access token was granted, without an OAuth app.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#fcb400"/>' +
    '<path d="M5 9l7-3 7 3-7 3z" fill="#fff"/><path d="M5 11v6l6 2v-6zM19 11v6l-6 2v-6z" fill="#18bfff"/></svg>',
  docs: [
    "https://airtable.com/developers/web/guides/personal-access-tokens",
    "https://airtable.com/developers/web/api/authentication",
    "https://airtable.com/developers/web/api/get-user-id-scopes",
  ],
  authMode: "API_KEY",
  credentials: {
    fields: [
      {
        name: "token",
        label: "Personal access token",
        help: "Create one in Airtable's Builder Hub under Personal access tokens, with the scopes and bases to share.",
        secret: true,
        example: "patExample0000000.0000000000000000000000000000000000000000000000000000000000000000",
      },
    ],
    whereToFind: "https://airtable.com/create/tokens",
    key: "token",
    test: { method: "GET", path: "/v0/meta/whoami", idPath: "id", displayNamePath: "email" },
  },
  api: { baseUrl: "https://api.airtable.com", auth: { style: "bearer" } },
});
