/**
 * Tally API at https://api.tally.so: an API key (Settings → API keys) sent as `Authorization:
 * Bearer <key>`. Tally's webhooks belong to one form, so a connection is one form: the end user
 * gives the key and the form's id (the last part of tally.so/r/<id>), checked with `GET
 * /forms/{id}` (the connection's id is the form's). Per connection Switchyard makes the form's
 * webhook (`POST /webhooks` with `formId`, `url`, `eventTypes` and its own `signingSecret`; deleted
 * with `DELETE /webhooks/{id}`). Tally signs each delivery `Tally-Signature` = base64 HMAC-SHA256
 * of the raw body with that secret; the body is `{ eventId, eventType, createdAt, data }`.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "tally",
  displayName: "Tally",
  category: "forms",
  description: "Responses submitted to a Tally form.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0070d7"/>' +
    '<path d="M8 6v12M12 6v12M16 6v12M6 15.5l12-5" stroke="#fff" stroke-width="1.6" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.tally.so/api-reference/introduction",
    "https://developers.tally.so/api-reference/endpoint/forms/get",
    "https://developers.tally.so/api-reference/endpoint/webhooks/post",
    "https://developers.tally.so/api-reference/endpoint/webhooks/delete",
    "https://tally.so/help/webhooks",
  ],
  authMode: "API_KEY",
  credentials: {
    fields: [
      {
        name: "api_key",
        label: "API key",
        help: "Create one in Tally under Settings → API keys; it starts with tly-.",
        secret: true,
        example: "tly-example0123456789abcdef",
      },
      {
        name: "form_id",
        label: "Form ID",
        help: "The last part of the form's share link: wMDxQr for https://tally.so/r/wMDxQr.",
        secret: false,
        pattern: "^[A-Za-z0-9]{3,20}$",
        example: "wMDxQr",
      },
    ],
    whereToFind: "https://tally.so/settings/api-keys",
    key: "api_key",
    test: { method: "GET", path: "/forms/{form_id}", idPath: "id", displayNamePath: "name" },
  },
  api: { baseUrl: "https://api.tally.so", auth: { style: "bearer" } },
  webhook: {
    scheme: { type: "hmac", header: "tally-signature", algorithm: "sha256", encoding: "base64", signedContent: "{body}" },
    event: { path: "eventType" },
    routing: ["data.formId"],
    deliveryId: { paths: ["eventId"] },
    occurredAt: ["createdAt"],
  },
  subscription: {
    resources: [{ resource: "", triggers: { form_response: ["FORM_RESPONSE"] } }],
    create: { method: "POST", path: "/webhooks", body: { formId: "{externalId}", url: "{subscriptionUrl}", eventTypes: "{events[]}", signingSecret: "{secret}" } },
    delete: { method: "DELETE", path: "/webhooks/{providerId}" },
    answer: { idPath: "id" },
    // Tally webhooks do not expire; the lifetime is only what a re-creation would ask for.
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "generated",
    webhook: {},
  },
  triggers: [
    {
      name: "form_response",
      displayName: "Form response",
      description: "Someone submitted the form.",
      providerEvent: "FORM_RESPONSE",
      samplePayload: {
        eventId: "a4cb511e-d513-4fa5-baee-b815d718dfd1",
        eventType: "FORM_RESPONSE",
        createdAt: "2026-01-01T12:00:00.000Z",
        data: {
          responseId: "2wgx4n",
          submissionId: "2wgx4n",
          respondentId: "dwQKYm",
          formId: "wMDxQr",
          formName: "Webhook payload example",
          createdAt: "2026-01-01T12:00:00.000Z",
          fields: [
            { key: "question_mVGEg3_5c1d5a8f", label: "What's your name?", type: "INPUT_TEXT", value: "Alice" },
            { key: "question_nPpB0X_8a7b2f10", label: "Email", type: "INPUT_EMAIL", value: "alice@example.com" },
            {
              key: "question_3E7o0R_2d9c1b44",
              label: "How did you hear about us?",
              type: "MULTIPLE_CHOICE",
              value: ["5c1d5a8f-21b0-4c3e-9f7a-3b2d1e0f9a8b"],
              options: [
                { id: "5c1d5a8f-21b0-4c3e-9f7a-3b2d1e0f9a8b", text: "A friend" },
                { id: "8a7b2f10-4d3c-4b1a-8e9f-0a1b2c3d4e5f", text: "Search" },
              ],
            },
          ],
        },
      },
    },
  ],
});
