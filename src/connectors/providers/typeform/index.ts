/**
 * Typeform: OAuth 2.0 with the `offline` scope for refresh tokens. No webhook section: Typeform webhook
 * payloads name the form, not the account, so they cannot be routed to a connected account.
 * Polled: forms are read on a schedule from the form list, most recently updated first
 * (`sort_by=last_updated_at&order_by=desc`).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "typeform",
  displayName: "Typeform",
  category: "forms",
  description: "Read the forms and responses of a Typeform account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#262627"/>' +
    '<path d="M7 8h10M12 8v9" stroke="#fff" stroke-width="2.2" stroke-linecap="round"/></svg>',
  docs: [
    "https://www.typeform.com/developers/get-started/applications/",
    "https://www.typeform.com/developers/get-started/scopes/",
    "https://www.typeform.com/developers/create/reference/retrieve-own-account/",
    "https://www.typeform.com/developers/create/reference/retrieve-forms/",
    "https://www.typeform.com/developers/get-started/#rate-limits",
  ],
  oauth: {
    authorizeUrl: "https://api.typeform.com/oauth/authorize",
    tokenUrl: "https://api.typeform.com/oauth/token",
    apiUrl: "https://api.typeform.com",
    scopes: ["accounts:read", "forms:read", "responses:read", "offline"],
    scopeDescriptions: {
      "accounts:read": "Read your account information",
      "forms:read": "Read your forms",
      "responses:read": "Read the responses to your forms",
      offline: "Keep this access while you are away (until you revoke it)",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/me",
    idPath: "user_id",
    displayNamePath: "alias",
    metadata: { email: "email" },
  },
  triggers: [
    {
      name: "form_updated",
      displayName: "Form created or updated",
      description: "A form in the account was created or edited (read from the form list on a schedule).",
      providerEvent: "GET /forms",
      // One form summary as the list answers it.
      samplePayload: {
        id: "abc123",
        type: "quiz",
        title: "Customer feedback",
        last_updated_at: "2026-01-01T10:00:00.000Z",
        created_at: "2026-01-01T09:00:00.000Z",
        settings: { is_public: true },
        self: { href: "https://api.typeform.com/forms/abc123" },
        _links: { display: "https://example.typeform.com/to/abc123" },
      },
    },
  ],
  polling: {
    triggers: {
      // Most recently updated first; the position is the newest `last_updated_at` seen.
      form_updated: {
        request: { path: "/forms", query: { page_size: "200", sort_by: "last_updated_at", order_by: "desc" } },
        items: "items",
        id: "id",
        version: "last_updated_at",
        occurredAt: "last_updated_at",
        cursor: { from: "version" },
      },
    },
  },
});
