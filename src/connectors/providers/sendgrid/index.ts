/**
 * SendGrid (Twilio SendGrid) v3 API: an API key the account owner creates under Settings → API
 * Keys, sent as `Authorization: Bearer <key>`. The key is checked with `GET /v3/user/username`,
 * which answers the account's `username` and numeric `user_id`. Connect only: SendGrid's Event
 * Webhook is configured once per account with its own ECDSA key, not per connection here.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "sendgrid",
  displayName: "SendGrid",
  category: "marketing",
  description: "Send email and manage the contacts, templates and statistics of a SendGrid account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1a82e2"/>' +
    '<path d="M6 6h6v6H6zM12 12h6v6h-6z" fill="#fff"/><path d="M12 6h6v6h-6z" fill="#99e1f4"/></svg>',
  docs: [
    "https://www.twilio.com/docs/sendgrid/api-reference/how-to-use-the-sendgrid-v3-api/authentication",
    "https://www.twilio.com/docs/sendgrid/api-reference/users-api/retrieve-your-username",
    "https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys",
  ],
  authMode: "API_KEY",
  credentials: {
    fields: [
      {
        name: "api_key",
        label: "API key",
        help: "Create one in SendGrid under Settings → API Keys; it is shown only once, when it is created.",
        secret: true,
        example: "SG.example-key-id.example-key-secret",
      },
    ],
    whereToFind: "https://app.sendgrid.com/settings/api_keys",
    apiUrl: "https://api.sendgrid.com",
    key: "api_key",
    test: { method: "GET", path: "/v3/user/username", idPath: "user_id", displayNamePath: "username" },
  },
  api: { auth: { style: "bearer" } },
});
