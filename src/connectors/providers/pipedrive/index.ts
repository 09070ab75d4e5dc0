/**
 * Pipedrive: OAuth 2.0 for Marketplace apps (HTTP Basic at the token endpoint, scopes chosen on the
 * app, 1-hour access tokens with refresh tokens). Webhooks v2 authenticate with the HTTP Basic
 * credentials given when the webhook was created (`http_auth_user`/`http_auth_password`): the
 * webhook secret here is base64("user:password"), compared with the `Authorization` header.
 * Events name the company (`meta.company_id`), which is the account's id.
 */
import { declareConnector } from "../../declaration.ts";

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
  ],
  oauth: {
    authorizeUrl: "https://oauth.pipedrive.com/oauth/authorize",
    tokenUrl: "https://oauth.pipedrive.com/oauth/token",
    apiUrl: "https://api.pipedrive.com",
    // Scopes are chosen on the app in Developer Hub; the authorize URL takes none.
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  identity: {
    path: "/v1/users/me",
    idPath: "data.company_id",
    displayNamePath: "data.company_name",
    metadata: { userId: "data.id", userName: "data.name", email: "data.email", companyDomain: "data.company_domain" },
  },
  webhook: {
    scheme: { type: "token", header: "authorization", prefix: "Basic " },
    // Pipedrive names events action.object (create.deal), as in event_action / event_object.
    event: { path: "meta.action", actionPath: "meta.entity" },
    routing: ["meta.company_id"],
    occurredAt: ["meta.timestamp", "data.update_time"],
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
