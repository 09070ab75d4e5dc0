/**
 * Gusto (app integrations): OAuth 2.0 authorization code for one company; the token answers for
 * that company, and `GET /v1/token_info` names it (`resource.uuid`). Webhooks are one subscription
 * per partner application (registered once, for every company that authorized the app): Gusto first
 * POSTs `{"verification_token": …}` unsigned, the operator confirms it at Gusto, and every event is
 * then signed `X-Gusto-Signature` = hex HMAC-SHA256 of the raw body keyed with that token. Events
 * name the company in `resource_uuid` and carry their own `uuid` (stable across retries).
 */
import { declareConnector } from "../../declaration.ts";

const company = "5df911a0-e8e9-412d-8aaf-a46ad193dd96";
const event = (uuid: string, eventType: string, entityType: string, entityUuid: string, timestamp: number) => ({
  uuid,
  event_type: eventType,
  resource_type: "Company",
  resource_uuid: company,
  entity_type: entityType,
  entity_uuid: entityUuid,
  timestamp,
});

export default declareConnector({
  name: "gusto",
  displayName: "Gusto",
  category: "other",
  description: "Payroll, employees and contractors of the Gusto companies that connected your app.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0a8080"/>' +
    '<circle cx="12" cy="9" r="3" fill="none" stroke="#fff" stroke-width="1.8"/>' +
    '<path d="M6.5 18.5c1-3 3-4.3 5.5-4.3s4.5 1.3 5.5 4.3" fill="none" stroke="#fff" stroke-width="1.8" stroke-linecap="round"/></svg>',
  docs: [
    "https://docs.gusto.com/app-integrations/docs/authentication",
    "https://docs.gusto.com/app-integrations/reference/get-v1-token-info",
    "https://docs.gusto.com/app-integrations/docs/webhooks",
    "https://docs.gusto.com/embedded-payroll/docs/employee-events",
    "https://docs.gusto.com/embedded-payroll/docs/payroll-events",
    "https://docs.gusto.com/embedded-payroll/changelog/added-unique-identifier-to-webhook-event-payload",
    "https://docs.gusto.com/app-integrations/reference/revoke-access-token",
  ],
  oauth: {
    authorizeUrl: "https://api.gusto.com/oauth/authorize",
    tokenUrl: "https://api.gusto.com/oauth/token",
    // Gusto's permissions are chosen on the application, not requested per authorization.
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    // Access tokens last two hours; each refresh returns a new refresh token.
    refresh: true,
    // docs.gusto.com/app-integrations/reference/revoke-access-token: the access token as `token` in a
    // JSON body with the client's id and secret; it can then neither be used nor refreshed.
    revocation: { url: "https://api.gusto.com/oauth/revoke", method: "POST", tokenParam: "token", body: "json", clientAuth: "client_secret_post", token: "access" },
  },
  identity: {
    path: "/v1/token_info",
    idPath: "resource.uuid",
    metadata: { resourceType: "resource.type", ownerUuid: "resource_owner.uuid", ownerType: "resource_owner.type" },
  },
  api: { baseUrl: "https://api.gusto.com" },
  webhook: {
    scheme: { type: "hmac", header: "x-gusto-signature", algorithm: "sha256", encoding: "hex" },
    verificationToken: { field: "verification_token" },
    event: { path: "event_type" },
    routing: ["resource_uuid"],
    deliveryId: { paths: ["uuid"] },
    occurredAt: ["timestamp"],
    // Gusto retries up to 16 times with exponential backoff (about three days).
    replayWindowSeconds: 4 * 86_400,
  },
  triggers: [
    {
      name: "employee_created",
      displayName: "Employee created",
      description: "An employee was added to the company.",
      providerEvent: "employee.created",
      samplePayload: event("03ffbf0c-48a9-4f1c-932a-546413a26ad1", "employee.created", "Employee", "bcfc9744-0ab3-4ef3-ab0d-e728255d659c", 1767261600),
    },
    {
      name: "employee_updated",
      displayName: "Employee updated",
      description: "An employee's details changed.",
      providerEvent: "employee.updated",
      samplePayload: event("5a0f3c9e-8d1b-4f6e-a2c7-3b9d0e1f2a4c", "employee.updated", "Employee", "bcfc9744-0ab3-4ef3-ab0d-e728255d659c", 1767265200),
    },
    {
      name: "employee_onboarded",
      displayName: "Employee onboarded",
      description: "An employee finished onboarding.",
      providerEvent: "employee.onboarded",
      samplePayload: event("7c2e9a41-0b3d-4e5f-8a6b-9c1d2e3f4a5b", "employee.onboarded", "Employee", "bcfc9744-0ab3-4ef3-ab0d-e728255d659c", 1767344400),
    },
    {
      name: "employee_terminated",
      displayName: "Employee terminated",
      description: "An employee's termination was created.",
      providerEvent: "employee.terminated",
      samplePayload: event("9e4b1c7d-2f3a-4b5c-9d6e-0f1a2b3c4d5e", "employee.terminated", "Employee", "bcfc9744-0ab3-4ef3-ab0d-e728255d659c", 1769940000),
    },
    {
      name: "payroll_submitted",
      displayName: "Payroll submitted",
      description: "A payroll was submitted for processing.",
      providerEvent: "payroll.submitted",
      samplePayload: event("e5540567-a6ee-4ce8-bf3e-a12c563db54c", "payroll.submitted", "Payroll", "c02f2c32-34f7-4128-9145-7d49f0c3f355", 1767607200),
    },
    {
      name: "payroll_paid",
      displayName: "Payroll paid",
      description: "Payroll credits were generated and payments will be made.",
      providerEvent: "payroll.paid",
      samplePayload: event("f1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607", "payroll.paid", "Payroll", "c02f2c32-34f7-4128-9145-7d49f0c3f355", 1767866400),
    },
    {
      name: "contractor_created",
      displayName: "Contractor created",
      description: "A contractor was added to the company.",
      providerEvent: "contractor.created",
      samplePayload: event("2b3c4d5e-6f70-4a81-92b3-c4d5e6f7a809", "contractor.created", "Contractor", "8d1e2f3a-4b5c-4d6e-8f70-a1b2c3d4e5f6", 1767352800),
    },
  ],
});
