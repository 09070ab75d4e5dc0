/**
 * Cal.com API v2 at https://api.cal.com: an API key (Settings → Developer → API keys, prefixed
 * `cal_`) sent as `Authorization: Bearer <key>`, checked with `GET /v2/me` (the user's numeric
 * `id`). Per connection Switchyard makes a user-level webhook (`POST /v2/webhooks` with
 * `subscriberUrl`, `triggers`, `active` and its own `secret`; deleted with `DELETE
 * /v2/webhooks/{id}`; they do not expire): it fires for every event type the user owns. Cal.com
 * signs each delivery `X-Cal-Signature-256` = hex HMAC-SHA256 of the raw body keyed with that
 * secret; the body is `{ triggerEvent, createdAt, payload }`, the organizer in `payload.organizer`.
 */
import { declareConnector } from "../../declaration.ts";

const booking = {
  type: "30min",
  title: "30 Min Meeting between Hana Host and John Doe",
  description: "",
  additionalNotes: "Pricing for 20 seats",
  customInputs: {},
  startTime: "2026-01-05T15:00:00Z",
  endTime: "2026-01-05T15:30:00Z",
  organizer: { id: 42, name: "Hana Host", email: "host@example.com", username: "hana", timeZone: "Europe/London", language: { locale: "en" }, timeFormat: "h:mma", utcOffset: 0 },
  responses: { name: { label: "your_name", value: "John Doe" }, email: { label: "email_address", value: "john@example.com" } },
  userFieldsResponses: {},
  attendees: [{ email: "john@example.com", name: "John Doe", timeZone: "America/New_York", language: { locale: "en" }, utcOffset: -300 }],
  location: "integrations:daily",
  destinationCalendar: null,
  hideCalendarNotes: false,
  requiresConfirmation: null,
  eventTypeId: 7,
  seatsShowAttendees: true,
  seatsPerTimeSlot: null,
  uid: "bFJeNb2uX8ANpT3JL5EfXw",
  appsStatus: [],
  eventTitle: "30 Min Meeting",
  eventDescription: "",
  price: 0,
  currency: "usd",
  length: 30,
  bookingId: 91,
  metadata: { videoCallUrl: "https://app.cal.com/video/bFJeNb2uX8ANpT3JL5EfXw" },
  status: "ACCEPTED",
};

export default declareConnector({
  name: "cal_com",
  displayName: "Cal.com",
  category: "scheduling",
  description: "Bookings made, cancelled and rescheduled on a Cal.com user's event types.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#111827"/>' +
    '<rect x="6" y="7" width="12" height="11" rx="2" fill="none" stroke="#fff" stroke-width="1.6"/>' +
    '<path d="M6 10.5h12M9.5 5.5v3M14.5 5.5v3" stroke="#fff" stroke-width="1.6" stroke-linecap="round"/></svg>',
  docs: [
    "https://cal.com/docs/api-reference/v2/introduction",
    "https://cal.com/docs/api-reference/v2/me/get-my-profile",
    "https://cal.com/docs/api-reference/v2/webhooks/create-a-webhook",
    "https://cal.com/docs/api-reference/v2/webhooks/delete-a-webhook",
    "https://cal.com/docs/developing/guides/automation/webhooks",
    "https://cal.com/help/webhooks",
  ],
  authMode: "API_KEY",
  credentials: {
    fields: [
      {
        name: "api_key",
        label: "API key",
        help: "Create one in Cal.com under Settings → Developer → API keys; it starts with cal_.",
        secret: true,
        pattern: "^cal_[A-Za-z0-9_]{8,200}$",
        example: "cal_live_0123456789abcdef0123456789abcdef",
      },
    ],
    whereToFind: "https://app.cal.com/settings/developer/api-keys",
    key: "api_key",
    test: { method: "GET", path: "/v2/me", idPath: "data.id", displayNamePath: "data.name" },
  },
  api: { baseUrl: "https://api.cal.com", auth: { style: "bearer" } },
  webhook: {
    scheme: { type: "hmac", header: "x-cal-signature-256", algorithm: "sha256", encoding: "hex", signedContent: "{body}" },
    event: { path: "triggerEvent" },
    routing: ["payload.organizer.id"],
    occurredAt: ["createdAt"],
  },
  // One user-level webhook per connection, its own secret signing what it sends.
  subscription: {
    resources: [
      {
        resource: "",
        triggers: { booking_created: ["BOOKING_CREATED"], booking_cancelled: ["BOOKING_CANCELLED"], booking_rescheduled: ["BOOKING_RESCHEDULED"] },
      },
    ],
    create: { method: "POST", path: "/v2/webhooks", body: { active: true, subscriberUrl: "{subscriptionUrl}", triggers: "{events[]}", secret: "{secret}" } },
    delete: { method: "DELETE", path: "/v2/webhooks/{providerId}" },
    answer: { idPath: "data.id" },
    // Cal.com webhooks do not expire; the lifetime is only what a re-creation would ask for.
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "generated",
    webhook: {},
  },
  triggers: [
    {
      name: "booking_created",
      displayName: "Booking created",
      description: "Someone booked one of the user's event types.",
      providerEvent: "BOOKING_CREATED",
      samplePayload: { triggerEvent: "BOOKING_CREATED", createdAt: "2026-01-01T12:00:00.000Z", payload: booking },
    },
    {
      name: "booking_cancelled",
      displayName: "Booking cancelled",
      description: "A booking was cancelled by the attendee or the organizer.",
      providerEvent: "BOOKING_CANCELLED",
      samplePayload: {
        triggerEvent: "BOOKING_CANCELLED",
        createdAt: "2026-01-02T09:00:00.000Z",
        payload: { ...booking, status: "CANCELLED", cancellationReason: "Conflict came up" },
      },
    },
    {
      name: "booking_rescheduled",
      displayName: "Booking rescheduled",
      description: "A booking was moved to another time.",
      providerEvent: "BOOKING_RESCHEDULED",
      samplePayload: {
        triggerEvent: "BOOKING_RESCHEDULED",
        createdAt: "2026-01-03T10:00:00.000Z",
        payload: {
          ...booking,
          startTime: "2026-01-06T15:00:00Z",
          endTime: "2026-01-06T15:30:00Z",
          uid: "nT7vQ2mXcP4sL9eR1aZkYw",
          bookingId: 92,
          rescheduleUid: "bFJeNb2uX8ANpT3JL5EfXw",
          rescheduleStartTime: "2026-01-05T15:00:00Z",
          rescheduleEndTime: "2026-01-05T15:30:00Z",
        },
      },
    },
  ],
});
