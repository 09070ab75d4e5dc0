/**
 * Zendesk: every account lives at its own subdomain (`acme.zendesk.com`), so the connection
 * parameter `subdomain` fills the OAuth and API hosts. OAuth 2.0 code grant at
 * /oauth/authorizations/new and /oauth/tokens (PKCE S256, refresh tokens, client secret in the
 * body); the agent who authorized is GET /api/v2/users/me. Webhooks subscribed to Zendesk events
 * sign `X-Zendesk-Webhook-Signature` = base64 HMAC-SHA256 of the `X-Zendesk-Webhook-Signature-Timestamp`
 * value (RFC 3339) followed by the raw body; events carry `type`, `id`, `time` and the ticket in
 * `detail`, routed to the agent it is assigned to or requested by.
 */
import { declareConnector } from "../../declaration.ts";

const event = (type: string, detail: Record<string, unknown>, change: Record<string, unknown>) => ({
  type: `zen:event-type:${type}`,
  account_id: 12514403,
  id: "2b24ef10-19d4-4740-93cf-8f98ec4776c0",
  time: "2026-01-01T12:00:00Z",
  zendesk_event_version: "2022-11-06",
  subject: "zen:ticket:35436",
  detail: {
    id: "35436",
    subject: "My printer is on fire!",
    status: "OPEN",
    priority: "HIGH",
    requester_id: "20978392",
    assignee_id: "235323",
    created_at: "2026-01-01T12:00:00Z",
    updated_at: "2026-01-01T12:00:00Z",
    via: { channel: "web" },
    ...detail,
  },
  event: change,
});

export default declareConnector({
  name: "zendesk",
  displayName: "Zendesk",
  category: "support",
  description: "Tickets and their changes in a Zendesk Support account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#17494d"/><path d="M5 7h14l-9 10h9" fill="none" stroke="#fff" stroke-width="2" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developer.zendesk.com/documentation/api-basics/authentication/api-tokens-to-oauth/",
    "https://developer.zendesk.com/api-reference/ticketing/oauth/grant_type_tokens/",
    "https://developer.zendesk.com/api-reference/ticketing/users/users/#show-the-currently-authenticated-user",
    "https://developer.zendesk.com/documentation/webhooks/verifying/",
    "https://developer.zendesk.com/documentation/webhooks/anatomy-of-a-webhook-request",
    "https://developer.zendesk.com/api-reference/webhooks/event-types/webhook-event-types/",
    "https://developer.zendesk.com/api-reference/webhooks/event-types/ticket-events",
  ],
  oauth: {
    authorizeUrl: "https://{subdomain}.zendesk.com/oauth/authorizations/new",
    tokenUrl: "https://{subdomain}.zendesk.com/oauth/tokens",
    scopes: ["read"],
    scopeDescriptions: { read: "Read your tickets, users and organizations" },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  params: [
    {
      name: "subdomain",
      description: "the Zendesk account's subdomain: acme for https://acme.zendesk.com.",
      pattern: "^[a-z0-9][a-z0-9-]{0,62}$",
      example: "acme",
    },
  ],
  identity: {
    path: "/api/v2/users/me",
    idPath: "user.id",
    displayNamePath: "user.name",
    metadata: { email: "user.email", role: "user.role" },
  },
  api: { baseUrl: "https://{subdomain}.zendesk.com" },
  webhook: {
    scheme: {
      type: "hmac",
      header: "x-zendesk-webhook-signature",
      algorithm: "sha256",
      encoding: "base64",
      signedContent: "{timestamp}{body}",
      timestampHeader: "x-zendesk-webhook-signature-timestamp",
      timestampFormat: "rfc3339",
    },
    event: { path: "type" },
    routing: ["detail.assignee_id", "detail.requester_id"],
    deliveryId: { paths: ["id"] },
    occurredAt: ["time"],
  },
  triggers: [
    {
      name: "ticket_created",
      displayName: "Ticket created",
      description: "A ticket was created.",
      providerEvent: "zen:event-type:ticket.created",
      samplePayload: event("ticket.created", {}, { meta: { sequence: { id: "1", position: 1 } } }),
    },
    {
      name: "ticket_status_changed",
      displayName: "Ticket status changed",
      description: "A ticket's status changed (for example from open to solved).",
      providerEvent: "zen:event-type:ticket.status_changed",
      samplePayload: event("ticket.status_changed", { status: "SOLVED" }, { current: "SOLVED", previous: "OPEN" }),
    },
    {
      name: "ticket_comment_added",
      displayName: "Ticket comment added",
      description: "A comment was added to a ticket.",
      providerEvent: "zen:event-type:ticket.comment_added",
      samplePayload: event("ticket.comment_added", {}, { comment: { id: "1494", body: "Thanks, it is out now.", is_public: true, author: { id: "235323", is_staff: true, name: "Agent" } } }),
    },
  ],
});
