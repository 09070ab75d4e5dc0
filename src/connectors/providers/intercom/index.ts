/**
 * Intercom: OAuth for public apps (permissions set on the app, tokens that do not expire) and
 * webhook notifications signed `X-Hub-Signature: sha1=<hex HMAC-SHA1 of the body>` with the app's
 * client secret. Notifications name the workspace (`app_id`), which is the account's id here.
 */
import { declareConnector } from "../../declaration.ts";

const appId = "ecahpwf5";
const conversation = {
  type: "conversation",
  id: "147",
  created_at: 1767261600,
  updated_at: 1767261600,
  title: null,
  state: "open",
  open: true,
  read: false,
  priority: "not_priority",
  admin_assignee_id: null,
  team_assignee_id: null,
  source: {
    type: "conversation",
    id: "403918330",
    delivered_as: "customer_initiated",
    subject: "",
    body: "<p>Hi, my invoice shows the wrong VAT number.</p>",
    author: { type: "user", id: "6762f0bd1bb69f9f2193bba6", name: "Jane Customer", email: "jane@example.com" },
    url: null,
  },
  contacts: { type: "contact.list", contacts: [{ type: "contact", id: "6762f0bd1bb69f9f2193bba6", external_id: "cust_2291" }] },
  tags: { type: "tag.list", tags: [] },
};

export default declareConnector({
  name: "intercom",
  displayName: "Intercom",
  category: "support",
  description: "Conversations, replies, contacts and tickets in an Intercom workspace.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1f8ded"/>' +
    '<rect x="5" y="5" width="14" height="14" rx="3" fill="#fff"/>' +
    '<path d="M8.5 8v5M10.8 7.5v6.5M13.2 7.5v6.5M15.5 8v5M8.5 15.5c2 1.3 5 1.3 7 0" stroke="#1f8ded" stroke-width="1.2" stroke-linecap="round" fill="none"/></svg>',
  docs: [
    "https://developers.intercom.com/docs/build-an-integration/learn-more/authentication/setting-up-oauth",
    "https://developers.intercom.com/docs/references/rest-api/api.intercom.io/admins/identifyadmin",
    "https://developers.intercom.com/docs/webhooks/setting-up-webhooks",
    "https://developers.intercom.com/docs/references/webhooks/webhook-models",
    "https://developers.intercom.com/docs/build-an-integration/learn-more/authentication/installing-uninstalling-apps",
  ],
  oauth: {
    authorizeUrl: "https://app.intercom.com/oauth",
    tokenUrl: "https://api.intercom.io/auth/eagle/token",
    // Permissions are chosen on the app in the Developer Hub, not requested per authorization.
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
    // developers.intercom.com … installing-uninstalling-apps#revoking-access: POST /auth/uninstall with
    // the access token as the bearer uninstalls the app from the workspace and revokes its access.
    revocation: { url: "https://api.intercom.io/auth/uninstall", method: "POST", body: "none", clientAuth: "bearer_token" },
  },
  identity: {
    path: "/me",
    idPath: "app.id_code",
    displayNamePath: "app.name",
    metadata: { adminId: "id", adminName: "name", adminEmail: "email" },
  },
  api: { baseUrl: "https://api.intercom.io" },
  webhook: {
    scheme: { type: "hmac", header: "x-hub-signature", algorithm: "sha1", encoding: "hex", prefix: "sha1=" },
    event: { path: "topic" },
    routing: ["app_id"],
    deliveryId: { paths: ["id"] },
    occurredAt: ["created_at"],
  },
  triggers: [
    {
      name: "conversation_user_created",
      displayName: "New conversation from a customer",
      description: "A customer or lead started a conversation.",
      providerEvent: "conversation.user.created",
      samplePayload: {
        type: "notification_event",
        app_id: appId,
        data: { type: "notification_event_data", item: conversation },
        links: {},
        id: "notif_ccd8a4d2-3b8f-4c8e-a5b1-2f1d6e9c0a11",
        topic: "conversation.user.created",
        delivery_status: "pending",
        delivery_attempts: 1,
        delivered_at: 0,
        first_sent_at: 1767261601,
        created_at: 1767261601,
        self: null,
      },
    },
    {
      name: "conversation_admin_replied",
      displayName: "Teammate replied",
      description: "A teammate replied to a conversation.",
      providerEvent: "conversation.admin.replied",
      samplePayload: {
        type: "notification_event",
        app_id: appId,
        data: {
          type: "notification_event_data",
          item: {
            ...conversation,
            updated_at: 1767261900,
            conversation_parts: {
              type: "conversation_part.list",
              conversation_parts: [
                {
                  type: "conversation_part",
                  id: "2187450102",
                  part_type: "comment",
                  body: "<p>Thanks Jane, I've corrected it and re-sent the invoice.</p>",
                  created_at: 1767261900,
                  author: { type: "admin", id: "991267553", name: "Sam Support", email: "sam@example.com" },
                },
              ],
              total_count: 1,
            },
          },
        },
        links: {},
        id: "notif_0f2e7b6a-9d41-4e3c-8b0a-6c5d4e3f2a1b",
        topic: "conversation.admin.replied",
        delivery_status: "pending",
        delivery_attempts: 1,
        delivered_at: 0,
        first_sent_at: 1767261901,
        created_at: 1767261901,
        self: null,
      },
    },
    {
      name: "conversation_admin_closed",
      displayName: "Conversation closed",
      description: "A teammate closed a conversation.",
      providerEvent: "conversation.admin.closed",
      samplePayload: {
        type: "notification_event",
        app_id: appId,
        data: { type: "notification_event_data", item: { ...conversation, state: "closed", open: false, updated_at: 1767262000 } },
        links: {},
        id: "notif_5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d",
        topic: "conversation.admin.closed",
        delivery_status: "pending",
        delivery_attempts: 1,
        delivered_at: 0,
        first_sent_at: 1767262001,
        created_at: 1767262001,
        self: null,
      },
    },
    {
      name: "contact_user_created",
      displayName: "Contact created",
      description: "A user contact was created.",
      providerEvent: "contact.user.created",
      samplePayload: {
        type: "notification_event",
        app_id: appId,
        data: {
          type: "notification_event_data",
          item: {
            type: "contact",
            id: "6762f0bd1bb69f9f2193bba6",
            workspace_id: appId,
            external_id: "cust_2291",
            role: "user",
            email: "jane@example.com",
            name: "Jane Customer",
            created_at: 1767261500,
            updated_at: 1767261500,
          },
        },
        links: {},
        id: "notif_9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c5b",
        topic: "contact.user.created",
        delivery_status: "pending",
        delivery_attempts: 1,
        delivered_at: 0,
        first_sent_at: 1767261501,
        created_at: 1767261501,
        self: null,
      },
    },
  ],
});
