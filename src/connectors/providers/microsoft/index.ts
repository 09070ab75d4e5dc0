/**
 * Microsoft 365 (Outlook mail and calendar, Teams) through the Microsoft identity platform v2.0 and
 * Microsoft Graph. Outlook triggers come through Graph subscriptions Switchyard makes per account
 * (one on the inbox's messages, one on the calendar's events): POST /subscriptions with our own
 * clientState (Graph first checks the notificationUrl with its validationToken request), PATCH to
 * renew, DELETE. Notifications batch changes in `value[]`; changes.ts reads each item. After a
 * `missed` lifecycle notification the inbox's messages delta and the calendar's calendar-view delta
 * are read from the positions taken when their subscriptions were made (outlook.ts).
 */
import { declareConnector } from "../../declaration.ts";
import { graphApi, graphIdentity, graphOAuth, graphSubscription } from "./graph.ts";
import { graphValidationToken } from "./verification.ts";
import { readOutlookChange, startOutlookDelta } from "./outlook.ts";

const sampleMessage = {
  "@odata.etag": 'W/"CQAAABYAAAB3f0eAa2hDQ5XyZ8fT8A=="',
  id: "AAMkAGVmMDEzMTM4LTZmYWUtNDdkNC1hMDZiLTU1OGY5OTZhYmY4OABGAAAAAAAiQ8W967B7TKBjgx9rVEURBwAiIsqMbYjsT5e-T7KzowPTAAAAAAEMAAAiIsqMbYjsT5e-T7KzowPTAAAYbvZAAAA=",
  createdDateTime: "2026-01-01T10:00:00Z",
  lastModifiedDateTime: "2026-01-01T10:00:01Z",
  changeKey: "CQAAABYAAAB3f0eAa2hDQ5XyZ8fT8A==",
  receivedDateTime: "2026-01-01T10:00:00Z",
  subject: "Quarterly report",
  bodyPreview: "Hi Alice, attached is the quarterly report we discussed.",
  isRead: false,
  from: { emailAddress: { name: "Bob Example", address: "bob@example.org" } },
  toRecipients: [{ emailAddress: { name: "Alice Example", address: "alice@example.com" } }],
};
const sampleEvent = {
  "@odata.etag": 'W/"ZlnW4RIAV06KYYwlrfNZvQAAKGWwbw=="',
  id: "AAMkAGIAAAoZDOFAAA=",
  createdDateTime: "2026-01-01T09:00:00Z",
  lastModifiedDateTime: "2026-01-01T09:00:00Z",
  changeKey: "ZlnW4RIAV06KYYwlrfNZvQAAKGWwbw==",
  subject: "Quarterly review",
  start: { dateTime: "2026-01-05T10:00:00.0000000", timeZone: "UTC" },
  end: { dateTime: "2026-01-05T11:00:00.0000000", timeZone: "UTC" },
  organizer: { emailAddress: { name: "Alice Example", address: "alice@example.com" } },
  isCancelled: false,
};

export default declareConnector({
  name: "microsoft",
  displayName: "Microsoft 365",
  category: "mail",
  description: "Outlook mail and calendars of a Microsoft work, school or personal account, through Microsoft Graph.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#2b2b2b"/>' +
    '<rect x="5" y="5" width="6.5" height="6.5" fill="#f25022"/><rect x="12.5" y="5" width="6.5" height="6.5" fill="#7fba00"/>' +
    '<rect x="5" y="12.5" width="6.5" height="6.5" fill="#00a4ef"/><rect x="12.5" y="12.5" width="6.5" height="6.5" fill="#ffb900"/></svg>',
  docs: [
    "https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow",
    "https://learn.microsoft.com/en-us/graph/permissions-reference",
    "https://learn.microsoft.com/en-us/graph/api/user-get",
    "https://learn.microsoft.com/en-us/graph/api/subscription-post-subscriptions",
    "https://learn.microsoft.com/en-us/graph/api/subscription-update",
    "https://learn.microsoft.com/en-us/graph/api/subscription-delete",
    "https://learn.microsoft.com/en-us/graph/api/resources/subscription",
    "https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks",
    "https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events",
    "https://learn.microsoft.com/en-us/graph/api/message-delta",
    "https://learn.microsoft.com/en-us/graph/api/event-delta",
  ],
  oauth: graphOAuth({ "Mail.Read": "Read your mail", "Calendars.Read": "Read your calendars" }),
  identity: graphIdentity,
  api: graphApi,
  handshakes: [graphValidationToken],
  subscription: graphSubscription({
    resources: [
      { resource: "me/mailFolders('Inbox')/messages", triggers: { message_received: ["created"] } },
      { resource: "me/events", triggers: { event_created: ["created"], event_updated: ["updated"], event_deleted: ["deleted"] } },
    ],
    // Outlook messages and events allow at most 10,070 minutes; 4,230 (under 3 days) is Graph's common choice.
    lifetimeSeconds: 4230 * 60,
  }),
  changes: { read: readOutlookChange, start: startOutlookDelta },
  triggers: [
    {
      name: "message_received",
      providerEvent: "messages.created",
      displayName: "Email received",
      description: "A message arrived in the Outlook inbox (the Graph message resource).",
      samplePayload: sampleMessage,
    },
    {
      name: "event_created",
      providerEvent: "events.created",
      displayName: "Event created",
      description: "An event was added to the Outlook calendar (the Graph event resource).",
      samplePayload: sampleEvent,
    },
    {
      name: "event_updated",
      providerEvent: "events.updated",
      displayName: "Event updated",
      description: "An event of the Outlook calendar changed (the Graph event resource as it is now).",
      samplePayload: { ...sampleEvent, lastModifiedDateTime: "2026-01-02T08:30:00Z", subject: "Quarterly review (moved)" },
    },
    {
      name: "event_deleted",
      providerEvent: "events.deleted",
      displayName: "Event deleted",
      description: "An event was deleted from the Outlook calendar (its id and Graph resource path: it can no longer be read).",
      samplePayload: { id: "AAMkAGIAAAoZDOFAAA=", changeType: "deleted", resource: "Users/a1b2c3d4-0000-4000-8000-000000000001/Events/AAMkAGIAAAoZDOFAAA=" },
    },
  ],
});
