/**
 * Microsoft Teams chats through Microsoft Graph, signed in like `microsoft` (the Microsoft identity
 * platform; work or school accounts: Graph has no chat subscriptions for personal accounts).
 * Switchyard keeps one Graph subscription per connection on every chat the user is in
 * (`/users/{id}/chats/getAllMessages`, the user-level resource delegated `Chat.Read` may watch; the
 * tenant-wide `/chats/getAllMessages` needs application permissions). Without resource data (that
 * needs an encryption certificate) each notification names the message's resource, which is read
 * with the account's token. Chat-message subscriptions longer than an hour need lifecycle
 * notifications: 55 minutes are asked for, renewed when a quarter is left.
 */
import { declareConnector } from "../../declaration.ts";
import { readGraphChange } from "../microsoft/changes.ts";
import { graphApi, graphIdentity, graphOAuth, graphSubscription } from "../microsoft/graph.ts";
import { graphValidationToken } from "../microsoft/verification.ts";

// The chatMessage resource, as https://learn.microsoft.com/en-us/graph/api/chatmessage-get shows it.
const sampleMessage = {
  "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#chats('19%3A8ea0e38b-efb3-4757-924a-5f94061cf8c2_97f62344-57dc-409c-88ad-c4af14158ff5%40unq.gbl.spaces')/messages/$entity",
  id: "1612289765949",
  replyToId: null,
  etag: "1612289765949",
  messageType: "message",
  createdDateTime: "2026-01-02T18:16:05.949Z",
  lastModifiedDateTime: "2026-01-02T18:16:05.949Z",
  lastEditedDateTime: null,
  deletedDateTime: null,
  subject: null,
  summary: null,
  chatId: "19:8ea0e38b-efb3-4757-924a-5f94061cf8c2_97f62344-57dc-409c-88ad-c4af14158ff5@unq.gbl.spaces",
  importance: "normal",
  locale: "en-us",
  webUrl: null,
  channelIdentity: null,
  policyViolation: null,
  eventDetail: null,
  from: {
    application: null,
    device: null,
    user: { id: "8ea0e38b-efb3-4757-924a-5f94061cf8c2", displayName: "Robin Kline", userIdentityType: "aadUser", tenantId: "e61ef81e-8bd8-476a-92e8-4a62f8426fca" },
  },
  body: { contentType: "text", content: "Hello, can we meet at 3?" },
  attachments: [],
  mentions: [],
  reactions: [],
};

export default declareConnector({
  name: "microsoft_teams",
  displayName: "Microsoft Teams",
  category: "chat",
  description: "Messages posted in the Microsoft Teams chats (one-on-one, group and meeting chats) a work or school user takes part in.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#5059c9"/>' +
    '<rect x="4" y="7" width="11" height="10" rx="1.5" fill="#7b83eb"/><path d="M7 10h5M9.5 10v5" stroke="#fff" stroke-width="1.6" stroke-linecap="round"/>' +
    '<circle cx="18" cy="9" r="2" fill="#fff"/><path d="M16 12h4v3.5a2 2 0 0 1-4 0z" fill="#fff"/></svg>',
  docs: [
    "https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow",
    "https://learn.microsoft.com/en-us/graph/permissions-reference",
    "https://learn.microsoft.com/en-us/graph/api/user-get",
    "https://learn.microsoft.com/en-us/graph/teams-changenotifications-chatmessage",
    "https://learn.microsoft.com/en-us/graph/api/subscription-post-subscriptions",
    "https://learn.microsoft.com/en-us/graph/api/resources/subscription",
    "https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks",
    "https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events",
    "https://learn.microsoft.com/en-us/graph/api/chatmessage-get",
  ],
  oauth: graphOAuth({ "Chat.Read": "Read your Teams chat messages" }),
  identity: graphIdentity,
  api: graphApi,
  handshakes: [graphValidationToken],
  subscription: graphSubscription({
    resources: [{ resource: "chats/getAllMessages", triggers: { message_posted: ["created"] } }],
    resource: "users/{externalId}/chats/getAllMessages",
    // Longer than an hour needs a lifecycleNotificationUrl (resources/subscription), which the create now sends;
    // the hour is kept until a longer chatMessage maximum is confirmed (docs/connectors-research.md).
    lifetimeSeconds: 55 * 60,
  }),
  changes: { read: readGraphChange },
  triggers: [
    {
      name: "message_posted",
      providerEvent: "chatMessage.created",
      displayName: "Chat message posted",
      description: "A message was posted in a chat the user is in (the Graph chatMessage resource).",
      samplePayload: sampleMessage,
    },
  ],
});
