/**
 * Gmail: Google OAuth 2.0 and Gmail push notifications through Cloud Pub/Sub. A push only says
 * "this mailbox changed up to historyId N"; the messages are read from the history API with the
 * account's token (events.ts beside this file: the one piece of provider code here).
 */
import { declareConnector } from "../../declaration.ts";
import { googleOAuth } from "./google.ts";
import { parseGmailPush, readGmailHistory, startGmailHistory, type GmailEmailData } from "./events.ts";
import { pubsubPushToken } from "./pushToken.ts";

const sampleReceived: GmailEmailData = {
  emailAddress: "alice@example.com",
  messageId: "18c2f0a4b5d6e7f8",
  threadId: "18c2f0a4b5d6e7f8",
  labelIds: ["INBOX", "UNREAD", "CATEGORY_PERSONAL"],
  historyId: "9876543",
  subject: "Quarterly report",
  from: "Bob Example <bob@example.org>",
  to: "alice@example.com",
  date: "Thu, 1 Jan 2026 10:00:00 +0000",
  snippet: "Hi Alice, attached is the quarterly report we discussed…",
};

export default declareConnector({
  name: "gmail",
  displayName: "Gmail",
  category: "mail",
  description: "Emails sent and received in a Gmail mailbox.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#e8eaed"/>' +
    '<rect x="4" y="6.5" width="16" height="11" rx="1.5" fill="#fff" stroke="#c5221f" stroke-width="1.4"/>' +
    '<path d="m4.6 7.3 7.4 5.7 7.4-5.7" fill="none" stroke="#c5221f" stroke-width="1.6"/></svg>',
  docs: [
    "https://developers.google.com/identity/protocols/oauth2/web-server",
    "https://developers.google.com/gmail/api/reference/rest/v1/users/getProfile",
    "https://developers.google.com/gmail/api/guides/push",
    "https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions",
    "https://developers.google.com/gmail/api/reference/rest/v1/users.history/list",
    "https://developers.google.com/gmail/api/reference/rest/v1/users/watch",
    "https://developers.google.com/gmail/api/reference/rest/v1/users/stop",
  ],
  oauth: googleOAuth(
    { "https://www.googleapis.com/auth/gmail.readonly": "Read your email messages and settings (no sending, no deleting)" },
    { includeGrantedScopes: false },
  ),
  identity: {
    path: "/gmail/v1/users/me/profile",
    idPath: "emailAddress",
    lowercaseId: true,
    displayNamePath: "emailAddress",
    metadata: { emailAddress: "emailAddress" },
  },
  api: { baseUrl: "https://gmail.googleapis.com" },
  webhook: {
    delivery: "push",
    scheme: {
      own: pubsubPushToken,
      params: {
        // Signs the Pub/Sub push tokens.
        jwksUrl: "https://www.googleapis.com/oauth2/v3/certs",
        issuers: ["https://accounts.google.com", "accounts.google.com"],
      },
    },
    parse: parseGmailPush,
  },
  // The mailbox's history, read from the position taken when the account connected: on each push,
  // and by the poller where no push arrives.
  changes: { read: readGmailHistory, start: startGmailHistory },
  // The mailbox's watch, kept by Switchyard when CONNECTOR_GMAIL_PUBSUB_TOPIC names the Pub/Sub topic
  // (Gmail must be allowed to publish to it). Pushes then arrive through the webhook above. A watch
  // lasts 7 days and is renewed by calling watch again; stop ends it. Gmail gives a watch no id.
  subscription: {
    resources: [{ resource: "", triggers: { email_sent: ["SENT"], email_received: ["INBOX"] } }],
    create: { method: "POST", path: "/gmail/v1/users/me/watch", body: { topicName: "{topic}" } },
    renew: { method: "POST", path: "/gmail/v1/users/me/watch", body: { topicName: "{topic}" } },
    delete: { method: "POST", path: "/gmail/v1/users/me/stop" },
    answer: { expiresPath: "expiration", expiresFormat: "epoch_ms" },
    lifetimeSeconds: 7 * 24 * 3600,
    secret: "none",
    env: { topic: "PUBSUB_TOPIC" },
  },
  triggers: [
    {
      name: "email_sent",
      providerEvent: "messageAdded:SENT",
      displayName: "Email sent",
      description: "The mailbox sent an email (a message gained the SENT label).",
      samplePayload: {
        ...sampleReceived,
        messageId: "18c2f1b7c8d9e0f1",
        threadId: "18c2f0a4b5d6e7f8",
        labelIds: ["SENT"],
        historyId: "9876601",
        subject: "Re: Quarterly report",
        from: "alice@example.com",
        to: "Bob Example <bob@example.org>",
        date: "Thu, 1 Jan 2026 10:20:00 +0000",
        snippet: "Thanks Bob, looks good to me.",
      },
    },
    {
      name: "email_received",
      providerEvent: "messageAdded:INBOX",
      displayName: "Email received",
      description: "A new email arrived in the inbox.",
      samplePayload: { ...sampleReceived },
    },
  ],
});
