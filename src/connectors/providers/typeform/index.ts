/**
 * Typeform: OAuth 2.0 with the `offline` scope for refresh tokens.
 * - `form_response`: a connection given a `form_id` param gets a webhook on that form, made with the
 *   account's token (`PUT /forms/{form_id}/webhooks/{tag}` with our own generated `secret`, deleted
 *   with `DELETE` on the same tag); deliveries are signed `Typeform-Signature: sha256=<base64
 *   HMAC-SHA256 of the body>` with that secret. Typeform's payloads name the form, not the account, so
 *   only a subscription's own URL says whose they are. Connections without a form get no webhook.
 * - `form_updated`: polled for every connection from the form list, most recently updated first
 *   (`sort_by=last_updated_at&order_by=desc`).
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
    "https://www.typeform.com/developers/webhooks/reference/create-or-update-webhook/",
    "https://www.typeform.com/developers/webhooks/reference/delete-webhook/",
    "https://www.typeform.com/developers/webhooks/secure-your-webhooks/",
    "https://www.typeform.com/developers/webhooks/example-payload/",
  ],
  params: [
    {
      name: "form_id",
      description: "the id of the form whose responses are forwarded (the part after /to/ in its link)",
      pattern: "^[A-Za-z0-9]{1,32}$",
      example: "abc123",
      in: "path",
      optional: true,
    },
  ],
  oauth: {
    authorizeUrl: "https://api.typeform.com/oauth/authorize",
    tokenUrl: "https://api.typeform.com/oauth/token",
    scopes: ["accounts:read", "forms:read", "responses:read", "webhooks:read", "webhooks:write", "offline"],
    scopeDescriptions: {
      "webhooks:read": "Read the webhooks of your forms",
      "webhooks:write": "Add and remove the webhook that tells Switchyard about new responses",
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
  api: { baseUrl: "https://api.typeform.com", placeholders: { form_id: "form_id" } },
  webhook: {
    // Only for a subscription's own URL, verified with that webhook's generated secret.
    scheme: { type: "hmac", header: "typeform-signature", algorithm: "sha256", encoding: "base64", prefix: "sha256=" },
    event: { path: "event_type" },
    // The form; the subscription says whose it is (keep: "all").
    routing: ["form_response.form_id"],
    deliveryId: { paths: ["event_id"] },
    occurredAt: ["form_response.submitted_at"],
  },
  subscription: {
    resources: [{ resource: "", triggers: { form_response: ["form_response"] } }],
    create: {
      method: "PUT",
      path: "/forms/{form_id}/webhooks/switchyard-{channelId}",
      body: { url: "{subscriptionUrl}", enabled: true, secret: "{secret}", verify_ssl: true },
    },
    delete: { method: "DELETE", path: "/forms/{form_id}/webhooks/{providerId}" },
    answer: { idPath: "tag" },
    // Typeform webhooks do not expire; the lifetime is only what a re-creation would ask for.
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "generated",
    onlyWithParam: "form_id",
    webhook: { keep: "all" },
  },
  triggers: [
    {
      name: "form_response",
      displayName: "Form submitted",
      description: "Someone submitted the connection's form (its `form_id` param): Typeform's form_response payload.",
      providerEvent: "form_response",
      samplePayload: {
        event_id: "01HZX8B5J6K1M2N3P4Q5R6S7T8",
        event_type: "form_response",
        form_response: {
          form_id: "abc123",
          token: "a3a12ec67a1365927098a606107fac15",
          landed_at: "2026-01-01T10:00:00Z",
          submitted_at: "2026-01-01T10:01:30Z",
          definition: { id: "abc123", title: "Customer feedback", fields: [{ id: "SMEUb7VJz92Q", ref: "email", type: "email", title: "Your email?" }] },
          answers: [{ type: "email", email: "jane@example.com", field: { id: "SMEUb7VJz92Q", type: "email", ref: "email" } }],
        },
      },
    },
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
        occurredAt: ["last_updated_at"],
        cursor: { from: "version" },
      },
    },
  },
});
