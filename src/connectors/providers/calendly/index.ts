/**
 * Calendly: OAuth 2.0 (PKCE supported, 2-hour access tokens with refresh tokens). Switchyard makes a
 * user-scoped webhook subscription per connection (`POST /webhook_subscriptions`, deleted with
 * `DELETE /webhook_subscriptions/{uuid}`; they do not expire). Deliveries are signed
 * `Calendly-Webhook-Signature: t=…,v1=<hex HMAC-SHA256 of "{t}.{body}">` with the OAuth app's webhook
 * signing key (Calendly generates one per OAuth app: the operator stores it as the webhook secret).
 * Events are routed by the host's user URI (the account's id).
 */
import { declareConnector } from "../../declaration.ts";

const user = "https://api.calendly.com/users/AAAAAAAAAAAAAAAA";
const organization = "https://api.calendly.com/organizations/BBBBBBBBBBBBBBBB";
const scheduledEvent = {
  uri: "https://api.calendly.com/scheduled_events/GBGBDCAADAEDCRZ2",
  name: "30 Minute Meeting",
  status: "active",
  start_time: "2026-01-05T15:00:00.000000Z",
  end_time: "2026-01-05T15:30:00.000000Z",
  event_type: "https://api.calendly.com/event_types/GBGBDCAADAEDCRZ2",
  location: { type: "zoom", join_url: "https://calendly.zoom.us/j/82384734120" },
  invitees_counter: { total: 1, active: 1, limit: 1 },
  created_at: "2026-01-01T12:00:00.000000Z",
  updated_at: "2026-01-01T12:00:00.000000Z",
  event_memberships: [{ user, user_email: "host@example.com", user_name: "Hana Host" }],
  event_guests: [],
};
const invitee = {
  uri: "https://api.calendly.com/scheduled_events/GBGBDCAADAEDCRZ2/invitees/7c7b2e7a-1c8f-4f5e-9b6e-2d1f0a4c3b21",
  email: "test@example.com",
  first_name: "John",
  last_name: "Doe",
  name: "John Doe",
  status: "active",
  questions_and_answers: [{ question: "What would you like to discuss?", answer: "Pricing for 20 seats", position: 0 }],
  timezone: "America/New_York",
  event: "https://api.calendly.com/scheduled_events/GBGBDCAADAEDCRZ2",
  created_at: "2026-01-01T12:00:00.000000Z",
  updated_at: "2026-01-01T12:00:00.000000Z",
  tracking: { utm_campaign: null, utm_source: null, utm_medium: null, utm_content: null, utm_term: null, salesforce_uuid: null },
  text_reminder_number: null,
  rescheduled: false,
  old_invitee: null,
  new_invitee: null,
  cancel_url: "https://calendly.com/cancellations/7c7b2e7a-1c8f-4f5e-9b6e-2d1f0a4c3b21",
  reschedule_url: "https://calendly.com/reschedulings/7c7b2e7a-1c8f-4f5e-9b6e-2d1f0a4c3b21",
  routing_form_submission: null,
  no_show: null,
  reconfirmation: null,
  scheduled_event: scheduledEvent,
};

export default declareConnector({
  name: "calendly",
  displayName: "Calendly",
  category: "scheduling",
  description: "Meetings booked, canceled and marked as no-shows on a Calendly user's event types.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#006bff"/>' +
    '<path d="M16.5 8.5a5.5 5.5 0 1 0 0 7" stroke="#fff" stroke-width="2.2" fill="none" stroke-linecap="round"/></svg>',
  docs: [
    "https://developer.calendly.com/create-a-developer-account",
    "https://developer.calendly.com/api-docs/d7755e2f9e5fe-calendly-api",
    "https://developer.calendly.com/api-docs/005832c83aeae-get-current-user",
    "https://developer.calendly.com/api-docs/ZG9jOjM2MzE2MDM4-webhook-signatures",
    "https://developer.calendly.com/api-docs/ZG9jOjE2NDY2NTk-webhook-payload",
    "https://developer.calendly.com/docs/webhooks/overview",
    "https://developer.calendly.com/api-docs/overview/examples/webhooks",
    "https://developer.calendly.com/api-docs/overview/webhooks/webhook-signatures",
    "https://developer.calendly.com/receive-data-from-scheduled-events-in-real-time-with-webhook-subscriptions",
    "https://developer.calendly.com/api-docs/calendly-o-auth/o-auth/post-oauth-revoke",
  ],
  oauth: {
    authorizeUrl: "https://auth.calendly.com/oauth/authorize",
    tokenUrl: "https://auth.calendly.com/oauth/token",
    // Calendly OAuth apps get the user's full API access; there are no scopes to ask for.
    scopes: [],
    pkce: true,
    clientAuth: "client_secret_post",
    refresh: true,
    // developer.calendly.com/api-docs/calendly-o-auth/o-auth/post-oauth-revoke: an access or refresh
    // token as the form field `token`, the client's id and secret in the body; 200, else 400/403.
    revocation: { url: "https://auth.calendly.com/oauth/revoke", method: "POST", tokenParam: "token", body: "form", clientAuth: "client_secret_post", token: "refresh" },
  },
  identity: {
    path: "/users/me",
    idPath: "resource.uri",
    displayNamePath: "resource.name",
    metadata: { email: "resource.email", organization: "resource.current_organization", timezone: "resource.timezone" },
  },
  api: { baseUrl: "https://api.calendly.com", placeholders: { organization: "organization" } },
  webhook: {
    // Calendly's own example rejects signatures older than three minutes.
    scheme: { type: "stripe", header: "calendly-webhook-signature", toleranceSeconds: 180 },
    event: { path: "event" },
    routing: ["payload.scheduled_event.event_memberships[].user", "created_by"],
    occurredAt: ["created_at"],
  },
  // One user-scoped subscription per connection. Routing form submissions exist only at organization
  // scope: that trigger needs a subscription an organization admin registers once (docs/connectors.md).
  subscription: {
    resources: [
      {
        resource: "",
        triggers: { invitee_created: ["invitee.created"], invitee_canceled: ["invitee.canceled"], invitee_no_show_created: ["invitee_no_show.created"] },
      },
    ],
    create: {
      method: "POST",
      path: "/webhook_subscriptions",
      // Subscriptions of one user cannot share a URL: each gets its own (the query is ignored inbound).
      body: { url: "{notificationUrl}?channel={channelId}", events: "{events[]}", organization: "{organization}", user: "{externalId}", scope: "user" },
    },
    delete: { method: "DELETE", path: "/webhook_subscriptions/{providerId}" },
    answer: { idPath: "resource.uri", idIsUri: true },
    // Calendly subscriptions do not expire; the lifetime is only what a re-creation would ask for.
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "none",
  },
  triggers: [
    {
      name: "invitee_created",
      displayName: "Meeting booked",
      description: "An invitee scheduled a meeting on one of the user's event types.",
      providerEvent: "invitee.created",
      samplePayload: { created_at: "2026-01-01T12:00:00.000000Z", created_by: user, event: "invitee.created", payload: invitee },
    },
    {
      name: "invitee_canceled",
      displayName: "Meeting canceled",
      description: "An invitee or the host canceled a scheduled meeting.",
      providerEvent: "invitee.canceled",
      samplePayload: {
        created_at: "2026-01-02T09:00:00.000000Z",
        created_by: user,
        event: "invitee.canceled",
        payload: {
          ...invitee,
          status: "canceled",
          updated_at: "2026-01-02T09:00:00.000000Z",
          cancellation: { canceled_by: "John Doe", reason: "Conflict came up", canceler_type: "invitee", created_at: "2026-01-02T09:00:00.000000Z" },
          scheduled_event: { ...scheduledEvent, status: "canceled" },
        },
      },
    },
    {
      name: "invitee_no_show_created",
      displayName: "Invitee marked as no-show",
      description: "The host marked an invitee as a no-show.",
      providerEvent: "invitee_no_show.created",
      samplePayload: {
        created_at: "2026-01-05T15:40:00.000000Z",
        created_by: user,
        event: "invitee_no_show.created",
        payload: {
          ...invitee,
          no_show: {
            uri: "https://api.calendly.com/invitee_no_shows/639fa667-4f3a-4ffb-a6c4-5d1e2b8d9f10",
            created_at: "2026-01-05T15:40:00.000000Z",
          },
        },
      },
    },
    {
      name: "routing_form_submission_created",
      displayName: "Routing form submitted",
      description: "Someone submitted one of the organization's routing forms.",
      providerEvent: "routing_form_submission.created",
      samplePayload: {
        created_at: "2026-01-01T11:55:00.000000Z",
        created_by: user,
        event: "routing_form_submission.created",
        payload: {
          uri: "https://api.calendly.com/routing_form_submissions/AAAAAAAAAAAAAAAA",
          routing_form: "https://api.calendly.com/routing_forms/AAAAAAAAAAAAAAAA",
          organization,
          questions_and_answers: [{ question_uuid: "123e4567-e89b-12d3-a456-426614174000", question: "Team size", answer: "20-50" }],
          tracking: { utm_campaign: null, utm_source: null, utm_medium: null, utm_content: null, utm_term: null, salesforce_uuid: null },
          submitter: null,
          submitter_type: null,
          result: { type: "event_type", value: "https://api.calendly.com/event_types/GBGBDCAADAEDCRZ2" },
          created_at: "2026-01-01T11:55:00.000000Z",
          updated_at: "2026-01-01T11:55:00.000000Z",
        },
      },
    },
  ],
});
