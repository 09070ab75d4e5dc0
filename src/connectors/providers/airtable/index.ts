/**
 * Airtable: OAuth 2.0 where PKCE is mandatory and confidential clients authenticate with HTTP
 * Basic.
 *
 * Per connection Switchyard makes one webhook on the base the connection names (`params[base_id]`)
 * with the account's token: `POST /v0/bases/{baseId}/webhooks` with `notificationUrl` and a
 * specification for record changes (`dataTypes: ["tableData"]`), answered `{id, macSecretBase64,
 * expirationTime}`. Webhooks made with an OAuth token expire after 7 days: refreshed with
 * `POST /v0/bases/{baseId}/webhooks/{id}/refresh`, deleted with `DELETE /v0/bases/{baseId}/webhooks/{id}`
 * (the `webhook:manage` scope; reading record payloads needs `data.records:read`). A notification
 * is a ping `{base: {id}, webhook: {id}, timestamp}` signed `X-Airtable-Content-MAC:
 * hmac-sha256=<hex>`, an HMAC-SHA256 of the body keyed by the base64-decoded `macSecretBase64`;
 * what changed is then read from the webhook's payloads (payloads.ts) and forwarded one event per record.
 * Airtable asks for a ping to be answered 200 (or 204) with an empty body: every answer is bare
 * (`emptyAnswers`), refusals keeping their status.
 */
import { declareConnector } from "../../declaration.ts";
import { readAirtablePayloads } from "./payloads.ts";

const signature = { type: "hmac", header: "x-airtable-content-mac", prefix: "hmac-sha256=", algorithm: "sha256", encoding: "hex", secretEncoding: "base64" } as const;
const common = {
  baseId: "appA1b2C3d4E5f6G7",
  tableId: "tblQ1w2E3r4T5y6U7",
  timestamp: "2026-01-01T10:00:00.000Z",
  baseTransactionNumber: 42,
  actionMetadata: { source: "client", sourceMetadata: { user: { id: "usrA1b2C3d4E5f6G7", email: "ada@example.com", permissionLevel: "create", name: "Ada Example" } } },
};

export default declareConnector({
  name: "airtable",
  displayName: "Airtable",
  category: "docs",
  description: "Records created, changed and deleted in an Airtable base.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#18bfff"/>' +
    '<path d="M12 4.5 19 7.5 12 10.5 5 7.5z" fill="#fff"/><path d="M5 9.5v7l6 2.5v-7zM19 9.5v7l-6 2.5v-7z" fill="#fff" opacity=".8"/></svg>',
  docs: [
    "https://airtable.com/developers/web/api/oauth-reference",
    "https://airtable.com/developers/web/api/scopes",
    "https://airtable.com/developers/web/api/get-user-id-scopes",
    "https://airtable.com/developers/web/api/webhooks-overview",
    "https://airtable.com/developers/web/api/create-a-webhook",
    "https://airtable.com/developers/web/api/list-webhook-payloads",
    "https://airtable.com/developers/web/api/refresh-a-webhook",
    "https://airtable.com/developers/web/api/delete-a-webhook",
    "https://airtable.com/developers/web/api/model/webhooks-payload",
  ],
  oauth: {
    authorizeUrl: "https://airtable.com/oauth2/v1/authorize",
    tokenUrl: "https://airtable.com/oauth2/v1/token",
    // webhook:manage: the base's webhook Switchyard adds, refreshes and removes; data.records:read also reads its record payloads.
    scopes: ["user.email:read", "data.records:read", "schema.bases:read", "webhook:manage"],
    scopeDescriptions: {
      "user.email:read": "See your email address",
      "data.records:read": "See the records in the bases you choose",
      "schema.bases:read": "See the structure of the bases you choose",
      "webhook:manage": "Add, refresh and remove webhooks (Switchyard adds one on the base it watches for you and removes it when you disconnect)",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  params: [
    {
      name: "base_id",
      description: "The id of the Airtable base to watch (app…, the first part of the base's URL path)",
      pattern: "^app[A-Za-z0-9]{14}$",
      example: "appA1b2C3d4E5f6G7",
      in: "path",
    },
  ],
  identity: {
    path: "/v0/meta/whoami",
    idPath: "id",
    displayNamePath: "email",
    metadata: { email: "email", scopes: "scopes" },
  },
  // The proxy base: airtable.js: `endpointUrl` https://api.airtable.com, it adds `/v0/` (https://github.com/Airtable/airtable.js).
  api: { baseUrl: "https://api.airtable.com" },
  // A ping names no event: at a subscription's own URL the changes it announces are read (payloads.ts); anywhere else it yields none.
  webhook: {
    scheme: signature,
    parse: () => ({ kind: "events", events: [] }),
    emptyAnswers: true,
  },
  subscription: {
    resources: [{ resource: "bases/{base_id}", triggers: { record_created: ["tableData"], record_updated: ["tableData"], record_deleted: ["tableData"] } }],
    create: {
      method: "POST",
      path: "/v0/bases/{base_id}/webhooks",
      body: { notificationUrl: "{subscriptionUrl}", specification: { options: { filters: { dataTypes: ["tableData"] } } } },
    },
    renew: { method: "POST", path: "/v0/bases/{base_id}/webhooks/{providerId}/refresh" },
    delete: { method: "DELETE", path: "/v0/bases/{base_id}/webhooks/{providerId}" },
    answer: { idPath: "id", expiresPath: "expirationTime", secretPath: "macSecretBase64" },
    lifetimeSeconds: 7 * 24 * 60 * 60,
    secret: "answer",
    webhook: { keep: "all" },
  },
  changes: { read: readAirtablePayloads },
  triggers: [
    {
      name: "record_created",
      displayName: "Record created",
      description: "A record was added to a table of the watched base (its cell values by field id).",
      providerEvent: "tableData.created",
      samplePayload: { ...common, recordId: "recR1e2C3o4R5d6A7", createdTime: "2026-01-01T10:00:00.000Z", cellValuesByFieldId: { fldN4m3e5F6i7E8l: "Write the release notes" } },
    },
    {
      name: "record_updated",
      displayName: "Record updated",
      description: "Cells of a record in the watched base changed (`current` and `previous` cell values of the changed fields).",
      providerEvent: "tableData.changed",
      samplePayload: {
        ...common,
        baseTransactionNumber: 43,
        recordId: "recR1e2C3o4R5d6A7",
        current: { cellValuesByFieldId: { fldS7a8T9u0S1x2Y: { id: "selA1b2C3d4E5f6G7", name: "Done", color: "greenLight2" } } },
        previous: { cellValuesByFieldId: { fldS7a8T9u0S1x2Y: { id: "selH8i9J0k1L2m3N4", name: "In progress", color: "yellowLight2" } } },
      },
    },
    {
      name: "record_deleted",
      displayName: "Record deleted",
      description: "A record was deleted from the watched base (its id only: it can no longer be read).",
      providerEvent: "tableData.destroyed",
      samplePayload: { ...common, baseTransactionNumber: 44, recordId: "recR1e2C3o4R5d6A7" },
    },
  ],
});
