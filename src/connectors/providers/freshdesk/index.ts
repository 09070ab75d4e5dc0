/**
 * Freshdesk API v2 at `https://{domain}.freshdesk.com/api/v2`: HTTP Basic with the agent's API
 * key (Profile Settings → Your API Key) as user name and any password (`X` by convention). The key
 * is checked with `GET /api/v2/agents/me` (the agent's `id`, `contact.name`).
 * Freshdesk's own webhooks come from automation rules the admin writes, without a signature, so
 * tickets are polled: the ticket list, most recently updated first, since the newest update seen.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "freshdesk",
  displayName: "Freshdesk",
  category: "support",
  description: "Read and update the tickets, contacts and companies of a Freshdesk helpdesk.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#25c16f"/>' +
    '<path d="M6 12a6 6 0 0 1 12 0v5h-4v-4h3M6 13h3v4H6z" fill="none" stroke="#fff" stroke-width="1.8" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developers.freshdesk.com/api/#authentication",
    "https://developers.freshdesk.com/api/#me",
    "https://developers.freshdesk.com/api/#list_all_tickets",
  ],
  authMode: "BASIC",
  params: [
    {
      name: "domain",
      description: "The helpdesk's Freshdesk subdomain: acme for acme.freshdesk.com.",
      pattern: "^[a-z0-9][a-z0-9-]{0,62}$",
      example: "acme",
    },
  ],
  credentials: {
    fields: [
      {
        name: "api_key",
        label: "API key",
        help: "In Freshdesk, open your profile picture → Profile Settings; the key is under Your API Key.",
        secret: true,
        example: "abcdefghij0123456789",
      },
    ],
    whereToFind: "https://support.freshdesk.com/support/solutions/articles/215517-how-to-find-your-api-key",
    basic: { username: "{api_key}", password: "X" },
    test: { method: "GET", path: "/api/v2/agents/me", idPath: "id", displayNamePath: "contact.name" },
  },
  api: { baseUrl: "https://{domain}.freshdesk.com", auth: { style: "basic" } },
  triggers: [
    {
      name: "ticket_updated",
      displayName: "Ticket created or updated",
      description: "A ticket was created or changed in the helpdesk (read from the ticket list on a schedule).",
      providerEvent: "GET /api/v2/tickets",
      // One ticket as the list answers it (the documented list example).
      samplePayload: {
        cc_emails: ["user@cc.com"],
        fwd_emails: [],
        reply_cc_emails: ["user@cc.com"],
        fr_escalated: false,
        spam: false,
        email_config_id: null,
        group_id: null,
        priority: 1,
        requester_id: 5,
        responder_id: null,
        source: 2,
        status: 2,
        subject: "Support needed..",
        to_emails: null,
        product_id: null,
        id: 20,
        type: "Question",
        due_by: "2026-01-04T10:00:00Z",
        fr_due_by: "2026-01-02T10:00:00Z",
        is_escalated: false,
        custom_fields: { category: "Primary" },
        created_at: "2026-01-01T10:00:00Z",
        updated_at: "2026-01-01T10:00:00Z",
        tags: [],
      },
    },
  ],
  polling: {
    triggers: {
      // Most recently updated first; `updated_since` (ISO 8601) narrows later reads to what changed.
      // Without it the list covers tickets created in the last 30 days.
      ticket_updated: {
        request: { path: "/api/v2/tickets", query: { order_by: "updated_at", order_type: "desc", per_page: "100", updated_since: "{cursor}" } },
        id: "id",
        version: "updated_at",
        occurredAt: ["updated_at"],
        cursor: { from: "version" },
      },
    },
  },
});
