/**
 * Pipedrive: OAuth 2.0 for Marketplace apps (HTTP Basic at the token endpoint, scopes chosen on the
 * app, 1-hour access tokens with refresh tokens). Webhooks v2 authenticate with the HTTP Basic
 * credentials given when the webhook was created (`http_auth_user`/`http_auth_password`): the
 * app-level webhook secret here is base64("user:password"), compared with the `Authorization` header.
 * Events name the company (`meta.company_id`), which is the account's id.
 *
 * Switchyard makes the webhooks per connection with the account's token: one per listed
 * action/object pair (a webhook has one `event_action` and one `event_object`), `POST /v1/webhooks`
 * with `subscription_url`, `event_action`, `event_object`, `version: "2.0"` and Basic credentials
 * whose password is the subscription's own secret; deleted with `DELETE /v1/webhooks/{id}`.
 * Pipedrive checks each event against the permissions of the user whose token made the webhook;
 * every event the webhook sends belongs to the connection.
 */
import { declareConnector } from "../../declaration.ts";
import { pipedriveBasicAuth } from "./basicAuth.ts";

const meta = (action: string, entity: string, id: number, timestamp: number) => ({
  action,
  entity,
  version: "2.0",
  company_id: 12882925,
  user_id: 18487521,
  id,
  entity_id: id,
  webhook_id: 99,
  webhook_owner_id: 18487521,
  permitted_user_ids: [18487521],
  attempt: 1,
  host: "acme.pipedrive.com",
  timestamp,
  change_source: "app",
});
const deal = {
  id: 1,
  title: "Acme Corp — 20 seats",
  value: 12000,
  currency: "USD",
  status: "open",
  stage_id: 1,
  pipeline_id: 1,
  owner_id: 18487521,
  person_id: 3,
  org_id: 2,
  add_time: "2026-01-01T10:00:00Z",
  update_time: "2026-01-01T10:00:00Z",
};

export default declareConnector({
  name: "pipedrive",
  displayName: "Pipedrive",
  category: "crm",
  description: "Deals, people and leads created or changed in a Pipedrive company.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#017737"/>' +
    '<path d="M9 20V5h4a4.5 4.5 0 0 1 0 9H9" stroke="#fff" stroke-width="2.4" fill="none" stroke-linejoin="round"/></svg>',
  docs: [
    "https://pipedrive.readme.io/docs/marketplace-oauth-authorization",
    "https://developers.pipedrive.com/docs/api/v1/Users#getCurrentUser",
    "https://pipedrive.readme.io/docs/guide-for-webhooks-v2",
    "https://developers.pipedrive.com/docs/api/v1/Webhooks#addWebhook",
    "https://developers.pipedrive.com/docs/api/v1/Webhooks#deleteWebhook",
    "https://developers.pipedrive.com/docs/api/v1/Webhooks#getWebhooks",
    "https://pipedrive.readme.io/docs/webhooks-for-apps",
    "https://pipedrive.readme.io/docs/webhooks-v2-migration-guide",
    "https://pipedrive.readme.io/docs/app-uninstallation",
  ],
  oauth: {
    authorizeUrl: "https://oauth.pipedrive.com/oauth/authorize",
    tokenUrl: "https://oauth.pipedrive.com/oauth/token",
    // Scopes are chosen on the app in Developer Hub; the authorize URL takes none.
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_basic",
    refresh: true,
    // pipedrive.readme.io/docs/app-uninstallation ("Token revocation", RFC 7009): the refresh token
    // as the form field `token`, HTTP Basic with the client; revoking the refresh token removes
    // every grant and marks the app uninstalled (the access token alone would leave it installed).
    revocation: { url: "https://oauth.pipedrive.com/oauth/revoke", method: "POST", tokenParam: "token", body: "form", clientAuth: "client_secret_basic", token: "refresh" },
  },
  identity: {
    path: "/v1/users/me",
    idPath: "data.company_id",
    displayNamePath: "data.company_name",
    metadata: { userId: "data.id", userName: "data.name", email: "data.email", companyDomain: "data.company_domain" },
  },
  api: { baseUrl: "https://api.pipedrive.com" },
  webhook: {
    scheme: { type: "token", header: "authorization", prefix: "Basic " },
    // Pipedrive names events action.object (create.deal), as in event_action / event_object.
    event: { path: "meta.action", actionPath: "meta.entity" },
    routing: ["meta.company_id"],
    occurredAt: ["meta.timestamp", "data.update_time"],
  },
  // One webhook per listed action/object pair. Pipedrive webhooks do not expire, and Pipedrive has no
  // read of one webhook (only the list of all): nothing to renew or check.
  subscription: {
    resources: [
      { resource: "create.deal", values: { event_action: "create", event_object: "deal" }, triggers: { deal_created: ["create.deal"] } },
      { resource: "change.deal", values: { event_action: "change", event_object: "deal" }, triggers: { deal_changed: ["change.deal"] } },
      { resource: "create.person", values: { event_action: "create", event_object: "person" }, triggers: { person_created: ["create.person"] } },
      { resource: "create.lead", values: { event_action: "create", event_object: "lead" }, triggers: { lead_created: ["create.lead"] } },
    ],
    create: {
      method: "POST",
      path: "/v1/webhooks",
      body: {
        subscription_url: "{subscriptionUrl}",
        event_action: "{event_action}",
        event_object: "{event_object}",
        http_auth_user: "switchyard",
        http_auth_password: "{secret}",
        version: "2.0",
      },
    },
    delete: { method: "DELETE", path: "/v1/webhooks/{providerId}" },
    // No read of one webhook is documented, but the app's webhooks are listed: one missing from the
    // list (deleted by hand, or by Pipedrive after days of failed deliveries) is added again.
    check: { method: "GET", path: "/v1/webhooks", everySeconds: 6 * 60 * 60, list: { itemsPath: "data", idPath: "id" } },
    answer: { idPath: "data.id" },
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "generated",
    webhook: { scheme: { own: pipedriveBasicAuth, params: { user: "switchyard" } }, keep: "all" },
  },
  triggers: [
    {
      name: "deal_created",
      displayName: "Deal created",
      description: "A deal was added.",
      providerEvent: "create.deal",
      samplePayload: { meta: meta("create", "deal", 1, 1767261600), data: deal, previous: null },
    },
    {
      name: "deal_changed",
      displayName: "Deal changed",
      description: "A deal changed; `previous` holds the former values of what changed.",
      providerEvent: "change.deal",
      samplePayload: {
        meta: meta("change", "deal", 1, 1767348000),
        data: { ...deal, stage_id: 3, update_time: "2026-01-02T10:00:00Z" },
        previous: { stage_id: 1 },
      },
    },
    {
      name: "person_created",
      displayName: "Person created",
      description: "A contact person was added.",
      providerEvent: "create.person",
      samplePayload: {
        meta: meta("create", "person", 3, 1767261000),
        data: {
          id: 3,
          name: "Jane Buyer",
          first_name: "Jane",
          last_name: "Buyer",
          emails: [{ label: "work", value: "jane@acme.example", primary: true }],
          phones: [],
          owner_id: 18487521,
          org_id: 2,
          add_time: "2026-01-01T09:50:00Z",
          update_time: "2026-01-01T09:50:00Z",
        },
        previous: null,
      },
    },
    {
      name: "lead_created",
      displayName: "Lead created",
      description: "A lead was added to the Leads Inbox.",
      providerEvent: "create.lead",
      samplePayload: {
        meta: meta("create", "lead", 7, 1767255000),
        data: {
          id: "adf21080-0e10-11eb-879b-05d71fb426ec",
          title: "Acme Corp lead",
          owner_id: 18487521,
          person_id: 3,
          organization_id: 2,
          source_name: "API",
          is_archived: false,
          value: { amount: 12000, currency: "USD" },
          add_time: "2026-01-01T08:10:00.000Z",
          update_time: "2026-01-01T08:10:00.000Z",
        },
        previous: null,
      },
    },
  ],
});
