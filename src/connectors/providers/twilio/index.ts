/**
 * Twilio REST API: HTTP Basic with the Account SID as user name and the Auth Token as password
 * (both on the Console dashboard). Checked with `GET /2010-04-01/Accounts/{AccountSid}.json`
 * (`sid`, `friendly_name`). The Account SID is not secret: it is kept with the connection and
 * names the account in API paths.
 *
 * Triggers: Twilio calls the URLs set on each phone number (`SmsUrl`, `StatusCallback`); Switchyard
 * points every number of the account at the connection's own URL and puts the old URLs back on
 * disconnect (./numbers.ts: a number is not a subscription one call can make). Twilio signs each
 * request with the ACCOUNT's Auth Token (`X-Twilio-Signature`: base64 HMAC-SHA1 of the full URL
 * followed by each POST parameter's name and value, sorted by name), so the connection's own
 * credential verifies it; the bodies are form-encoded.
 */
import { declareConnector } from "../../declaration.ts";
import { twilioNumbers } from "./numbers.ts";
import { twilioSignature } from "./signature.ts";

const account = "AC0123456789abcdef0123456789abcdef";

export default declareConnector({
  name: "twilio",
  displayName: "Twilio",
  category: "other",
  description: "Send and read SMS, calls and phone numbers of a Twilio account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="12" fill="#f22f46"/><circle cx="12" cy="12" r="6" fill="none" stroke="#fff" stroke-width="1.6"/>' +
    '<circle cx="9.8" cy="9.8" r="1.3" fill="#fff"/><circle cx="14.2" cy="9.8" r="1.3" fill="#fff"/><circle cx="9.8" cy="14.2" r="1.3" fill="#fff"/><circle cx="14.2" cy="14.2" r="1.3" fill="#fff"/></svg>',
  docs: [
    "https://www.twilio.com/docs/iam/api",
    "https://www.twilio.com/docs/iam/api/account",
    "https://www.twilio.com/docs/phone-numbers/api/incomingphonenumber-resource",
    "https://www.twilio.com/docs/usage/webhooks/webhooks-security",
    "https://www.twilio.com/docs/messaging/guides/webhook-request",
    "https://www.twilio.com/docs/voice/api/call-resource",
  ],
  authMode: "BASIC",
  credentials: {
    fields: [
      {
        name: "account_sid",
        label: "Account SID",
        help: "On your Twilio Console dashboard, under Account Info: 34 characters starting with AC.",
        secret: false,
        pattern: "^AC[0-9a-fA-F]{32}$",
        example: "AC0123456789abcdef0123456789abcdef",
      },
      {
        name: "auth_token",
        label: "Auth Token",
        help: "On the same dashboard, under Account Info (press Show to reveal it).",
        secret: true,
        example: "0123456789abcdef0123456789abcdef",
      },
    ],
    whereToFind: "https://console.twilio.com/",
    basic: { username: "{account_sid}", password: "{auth_token}" },
    test: { method: "GET", path: "/2010-04-01/Accounts/{account_sid}.json", idPath: "sid", displayNamePath: "friendly_name" },
  },
  api: { baseUrl: "https://api.twilio.com", auth: { style: "basic" }, placeholders: { account_sid: "account_sid" } },
  webhook: {
    scheme: { own: twilioSignature, params: { header: "x-twilio-signature" } },
    format: "form",
    // The number's property whose URL Twilio called, named in that (signed) URL.
    event: { query: "event" },
    // Requests come to the connection's own URL, signed with its own Auth Token: they are its account's.
    deliveryId: { header: "i-twilio-idempotency-token" },
  },
  subscription: {
    resources: [{ resource: "", triggers: { sms_received: ["SmsUrl"], call_status_changed: ["StatusCallback"] } }],
    hooks: twilioNumbers,
    answer: {},
    // Phone number URLs do not expire; the lifetime is only what a re-creation would ask for.
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "none",
    webhook: { key: "basic_password" },
  },
  triggers: [
    {
      name: "sms_received",
      displayName: "SMS received",
      description: "One of the account's phone numbers received a text message.",
      providerEvent: "SmsUrl",
      samplePayload: {
        MessageSid: "SM0123456789abcdef0123456789abcdef",
        SmsSid: "SM0123456789abcdef0123456789abcdef",
        SmsMessageSid: "SM0123456789abcdef0123456789abcdef",
        AccountSid: account,
        MessagingServiceSid: "",
        From: "+14155550100",
        To: "+14155550199",
        Body: "Hello from the other side",
        NumMedia: "0",
        NumSegments: "1",
        SmsStatus: "received",
        ApiVersion: "2010-04-01",
      },
    },
    {
      name: "call_status_changed",
      displayName: "Call status changed",
      description: "A call to one of the account's phone numbers changed status (completed, busy, no-answer, failed…).",
      providerEvent: "StatusCallback",
      samplePayload: {
        CallSid: "CA0123456789abcdef0123456789abcdef",
        AccountSid: account,
        From: "+14155550100",
        To: "+14155550199",
        CallStatus: "completed",
        ApiVersion: "2010-04-01",
        Direction: "inbound",
        CallDuration: "42",
        Timestamp: "Mon, 05 Jan 2026 15:00:42 +0000",
        SequenceNumber: "0",
        CallbackSource: "call-progress-events",
      },
    },
  ],
});
