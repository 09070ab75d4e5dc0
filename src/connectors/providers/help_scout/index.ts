/**
 * Help Scout Mailbox API 2.0: OAuth 2.0 authorization code (no scopes; the app gets the authorizing
 * user's access), two-day access tokens with refresh tokens. The identity is `GET /v2/users/me`. No webhook section: Help Scout webhooks are created per account (in the account or through the API with its token),
 * each with its own secret key.
 * Polled: conversations are read on a schedule from the conversation list, newest change first
 * (`modifiedSince` the newest seen).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "help_scout",
  displayName: "Help Scout",
  category: "support",
  description: "Read the conversations, customers and mailboxes of a Help Scout account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1292ee"/>' +
    '<path d="M5 8h14v2.5a1.5 1.5 0 0 0 0 3V16H5v-2.5a1.5 1.5 0 0 0 0-3z" fill="none" stroke="#fff" stroke-width="1.7" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developer.helpscout.com/mailbox-api/overview/authentication/",
    "https://developer.helpscout.com/mailbox-api/endpoints/users/me/",
    "https://developer.helpscout.com/webhooks/",
    "https://developer.helpscout.com/mailbox-api/endpoints/conversations/list/",
  ],
  oauth: {
    authorizeUrl: "https://secure.helpscout.net/authentication/authorizeClientApplication",
    tokenUrl: "https://api.helpscout.net/v2/oauth2/token",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/v2/users/me",
    idPath: "id",
    displayNamePath: "email",
    metadata: { firstName: "firstName", lastName: "lastName" },
  },
  api: { baseUrl: "https://api.helpscout.net" },
  triggers: [
    {
      name: "conversation_updated",
      displayName: "Conversation created or updated",
      description: "A conversation was created or changed (a reply, a note, a status or assignment change), read from the conversation list on a schedule.",
      providerEvent: "GET /v2/conversations",
      // One conversation as the list answers it.
      samplePayload: {
        id: 10,
        number: 12,
        threads: 2,
        type: "email",
        folderId: 11,
        status: "active",
        state: "published",
        subject: "Help",
        preview: "Preview",
        mailboxId: 13,
        assignee: { id: 1234, type: "user", first: "Jack", last: "Sprout", email: "jack.sprout@gmail.com" },
        createdBy: { id: 12, type: "customer", first: "Vernon", last: "Bear", email: "vbear@mywork.com" },
        createdAt: "2026-01-01T09:00:00Z",
        userUpdatedAt: "2026-01-01T10:00:00Z",
        primaryCustomer: { id: 12, type: "customer", first: "Vernon", last: "Bear", email: "vbear@mywork.com" },
        tags: [{ id: 9150, color: "#929499", tag: "vip" }],
      },
    },
  ],
  polling: {
    triggers: {
      // Newest change first, since the newest seen (`modifiedSince`); all statuses.
      conversation_updated: {
        request: {
          path: "/v2/conversations",
          query: { status: "all", sortField: "modifiedAt", sortOrder: "desc", modifiedSince: "{cursor}" },
        },
        items: "_embedded.conversations",
        id: "id",
        version: "userUpdatedAt",
        occurredAt: ["userUpdatedAt"],
        cursor: { from: "version" },
      },
    },
  },
});
