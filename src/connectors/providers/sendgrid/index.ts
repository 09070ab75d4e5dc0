/**
 * SendGrid (Twilio SendGrid) v3 API: an API key the account owner creates under Settings → API
 * Keys, sent as `Authorization: Bearer <key>`. The key is checked with `GET /v3/user/username`,
 * which answers the account's `username` and numeric `user_id`.
 *
 * Triggers come from an Event Webhook Switchyard makes per connection with its key (an account
 * may have several, each with its own URL and event flags; the key needs full access to Mail
 * Settings): `POST /v3/user/webhooks/event/settings` answers its `id`; signing is then switched on
 * for it (`PATCH …/settings/signed/{id}` `{enabled: true}`), whose answer carries the `public_key`
 * the events are verified with. SendGrid POSTs a JSON array of events, each signed request
 * carrying `X-Twilio-Email-Event-Webhook-Signature` (base64 ECDSA P-256 over SHA-256 of timestamp +
 * raw body) and `X-Twilio-Email-Event-Webhook-Timestamp`. Deleted on disconnect
 * (`DELETE …/settings/{id}`).
 */
import { declareConnector } from "../../declaration.ts";
import { sendgridSignature } from "./signature.ts";

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
    "https://www.twilio.com/docs/sendgrid/api-reference/webhooks/create-an-event-webhook",
    "https://www.twilio.com/docs/sendgrid/api-reference/webhooks/toggle-signature-verification-for-an-event-webhook",
    "https://www.twilio.com/docs/sendgrid/api-reference/webhooks/delete-an-event-webhook",
    "https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/getting-started-event-webhook-security-features",
    "https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/event",
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
    key: "api_key",
    test: { method: "GET", path: "/v3/user/username", idPath: "user_id", displayNamePath: "username" },
  },
  api: { baseUrl: "https://api.sendgrid.com", auth: { style: "bearer" } },
  webhook: {
    scheme: { own: sendgridSignature, params: { header: "x-twilio-email-event-webhook-signature", timestampHeader: "x-twilio-email-event-webhook-timestamp" } },
    // One POST carries a JSON array of events, each its own trigger event.
    batch: {},
    event: { path: "event" },
    // Events come to the connection's own webhook URL: they are that account's (no routing needed).
    deliveryId: { paths: ["sg_event_id"] },
    occurredAt: ["timestamp"],
  },
  subscription: {
    resources: [
      {
        resource: "",
        // The Event Webhook's per-event flags (spam reports are `spam_report` here, `spamreport` in events).
        triggers: { email_delivered: ["delivered"], email_bounced: ["bounce"], email_opened: ["open"], link_clicked: ["click"], spam_reported: ["spam_report"] },
      },
    ],
    create: {
      method: "POST",
      path: "/v3/user/webhooks/event/settings",
      body: {
        enabled: true,
        // No two webhooks of an account may share a URL: each connection's is its own.
        url: "{subscriptionUrl}",
        friendly_name: "Switchyard",
        delivered: "{events:includes:delivered}",
        bounce: "{events:includes:bounce}",
        open: "{events:includes:open}",
        click: "{events:includes:click}",
        spam_report: "{events:includes:spam_report}",
        processed: false,
        deferred: false,
        dropped: false,
        unsubscribe: false,
        group_unsubscribe: false,
        group_resubscribe: false,
      },
    },
    afterCreate: { method: "PATCH", path: "/v3/user/webhooks/event/settings/signed/{providerId}", body: { enabled: true } },
    delete: { method: "DELETE", path: "/v3/user/webhooks/event/settings/{providerId}" },
    answer: { idPath: "id", secretPath: "public_key" },
    // Event Webhooks do not expire; the lifetime is only what a re-creation would ask for.
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "answer",
    webhook: {},
  },
  triggers: [
    {
      name: "email_delivered",
      displayName: "Email delivered",
      description: "The receiving server accepted a message.",
      providerEvent: "delivered",
      samplePayload: {
        email: "example@test.com",
        timestamp: 1513299569,
        "smtp-id": "<14c5d75ce93.dfd.64b469@ismtpd-555>",
        event: "delivered",
        ip: "168.1.1.1",
        category: "cat facts",
        sg_event_id: "sg_event_id_delivered",
        sg_message_id: "sg_message_id",
        response: "250 OK",
      },
    },
    {
      name: "email_bounced",
      displayName: "Email bounced",
      description: "The receiving server could not or would not accept a message (a bounce or a block).",
      providerEvent: "bounce",
      samplePayload: {
        email: "example@test.com",
        timestamp: 1513299569,
        "smtp-id": "<14c5d75ce93.dfd.64b469@ismtpd-555>",
        event: "bounce",
        category: "cat facts",
        sg_event_id: "sg_event_id_bounce",
        sg_message_id: "sg_message_id",
        reason: "500 unknown recipient",
        status: "5.0.0",
        type: "bounce",
        bounce_classification: "Invalid Address",
      },
    },
    {
      name: "email_opened",
      displayName: "Email opened",
      description: "A recipient opened the HTML message (open tracking must be on).",
      providerEvent: "open",
      samplePayload: {
        email: "example@test.com",
        timestamp: 1513299569,
        event: "open",
        sg_machine_open: false,
        category: "cat facts",
        sg_event_id: "sg_event_id_open",
        sg_message_id: "sg_message_id",
        useragent: "Mozilla/4.0 (compatible; MSIE 6.1; Windows XP; .NET CLR 1.1.4322; .NET CLR 2.0.50727)",
        ip: "255.255.255.255",
      },
    },
    {
      name: "link_clicked",
      displayName: "Link clicked",
      description: "A recipient clicked a link in a message (click tracking must be on).",
      providerEvent: "click",
      samplePayload: {
        email: "example@test.com",
        timestamp: 1513299569,
        event: "click",
        category: "cat facts",
        sg_event_id: "sg_event_id_click",
        sg_message_id: "sg_message_id",
        useragent: "Mozilla/4.0 (compatible; MSIE 6.1; Windows XP; .NET CLR 1.1.4322; .NET CLR 2.0.50727)",
        ip: "255.255.255.255",
        url: "http://www.sendgrid.com/",
      },
    },
    {
      name: "spam_reported",
      displayName: "Marked as spam",
      description: "A recipient marked a message as spam.",
      providerEvent: "spamreport",
      samplePayload: {
        email: "example@test.com",
        timestamp: 1513299569,
        "smtp-id": "<14c5d75ce93.dfd.64b469@ismtpd-555>",
        event: "spamreport",
        category: "cat facts",
        sg_event_id: "sg_event_id_spamreport",
        sg_message_id: "sg_message_id",
      },
    },
  ],
});
