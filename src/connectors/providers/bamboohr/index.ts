/**
 * BambooHR with an API key as the HTTP Basic user name (any password; `x` by convention) on the
 * company's API `https://api.bamboohr.com/api/gateway.php/{company_domain}/v1`. Switchyard makes
 * one permissioned webhook per connection with the key (`POST /v1/webhooks`: name, url, format
 * json, the fields to monitor and to post); BambooHR answers the webhook's `privateKey` once, kept
 * sealed as that subscription's secret. Deliveries carry `X-BambooHR-Timestamp` and
 * `X-BambooHR-Signature`: the hex HMAC-SHA256 of the body followed by the timestamp, keyed with the
 * private key. Webhooks do not expire; they are deleted with `DELETE /v1/webhooks/{id}`.
 */
import { declareConnector } from "../../declaration.ts";

// Signed over the body followed by the X-BambooHR-Timestamp value.
const SCHEME = { type: "hmac", header: "x-bamboohr-signature", encoding: "hex", signedContent: "{body}{timestamp}", timestampHeader: "x-bamboohr-timestamp" } as const;

// Each delivery has its own id (the delivery id Switchyard deduplicates by).
const sample = (type: string, id: string, extra: Record<string, unknown>) => ({
  id,
  type,
  timestamp: "2026-01-02T15:30:00+00:00",
  data: {
    companyDomain: "acme",
    employeeId: "123",
    ...extra,
    fields: { firstName: "Charlotte", lastName: "Abbott", jobTitle: "Sr. HR Administrator", department: "Human Resources" },
  },
});

const MONITORED = ["firstName", "lastName", "jobTitle", "department", "division", "location", "employmentHistoryStatus", "status", "supervisor", "workEmail"];

export default declareConnector({
  name: "bamboohr",
  displayName: "BambooHR",
  category: "other",
  description: "Changes to the employee records of a BambooHR company: new hires, job, department and status changes.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#73c41d"/>' +
    '<path d="M9 19V6m0 4h2m-2 4h2M15 19V9m0 4h2" stroke="#fff" stroke-width="2" stroke-linecap="round"/></svg>',
  docs: [
    "https://documentation.bamboohr.com/docs/getting-started",
    "https://documentation.bamboohr.com/reference/get-employee",
    "https://documentation.bamboohr.com/docs/webhooks",
    "https://documentation.bamboohr.com/docs/permissioned-webhooks",
    "https://documentation.bamboohr.com/reference/post-webhook",
    "https://documentation.bamboohr.com/reference/delete-webhook",
    "https://documentation.bamboohr.com/reference/employee-created-webhook",
  ],
  authMode: "BASIC",
  params: [
    {
      name: "company_domain",
      description: "The company's BambooHR subdomain: acme for acme.bamboohr.com.",
      pattern: "^[a-z0-9][a-z0-9-]{0,62}$",
      example: "acme",
    },
  ],
  credentials: {
    fields: [
      {
        name: "api_key",
        label: "API key",
        help: "In BambooHR, your name (top right) → API Keys → Add New Key.",
        secret: true,
        pattern: "^[A-Za-z0-9]{20,80}$",
        example: "0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c",
      },
    ],
    whereToFind: "https://documentation.bamboohr.com/docs/getting-started",
    basic: { username: "{api_key}", password: "x" },
    // The key's own employee record (id 0 is "the user the key belongs to"); it answers its id and first name.
    test: { method: "GET", path: "/employees/0", idPath: "id", displayNamePath: "firstName" },
  },
  api: { baseUrl: "https://{company_domain}.bamboohr.com/api/v1", auth: { style: "basic" } },
  webhook: {
    scheme: SCHEME,
    event: { path: "type" },
    routing: ["data.companyDomain"],
    deliveryId: { paths: ["id"] },
    occurredAt: ["timestamp"],
  },
  subscription: {
    resources: [
      {
        resource: "employees",
        triggers: { employee_created: ["employee.created"], employee_updated: ["employee.updated"], employee_deleted: ["employee.deleted"] },
      },
    ],
    create: {
      method: "POST",
      path: "/webhooks",
      body: { name: "Switchyard", url: "{subscriptionUrl}", format: "json", events: "{events[]}", monitorFields: MONITORED, postFields: Object.fromEntries(MONITORED.map((f) => [f, f])) },
    },
    delete: { method: "DELETE", path: "/webhooks/{providerId}" },
    answer: { idPath: "id", secretPath: "privateKey" },
    // BambooHR webhooks do not expire; the lifetime is only when one is made afresh.
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "answer",
    // The webhook is the connection's own: every delivery is its account's (the body names the
    // company and an employee, never the key's owner the connection is identified by).
    webhook: { keep: "all" },
  },
  triggers: [
    {
      name: "employee_created",
      providerEvent: "employee.created",
      displayName: "Employee added",
      description: "An employee was added to the company (BambooHR's employee.created webhook event).",
      samplePayload: sample("employee.created", "f3a9c1d2-5b6e-4f70-8a91-b2c3d4e5f607", { changedFields: [] }),
    },
    {
      name: "employee_updated",
      providerEvent: "employee.updated",
      displayName: "Employee updated",
      description: "Monitored fields of an employee changed: name, job title, department, location, status, manager… (employee.updated).",
      samplePayload: sample("employee.updated", "f3a9c1d2-5b6e-4f70-8a91-b2c3d4e5f608", { changedFields: ["jobTitle", "department"] }),
    },
    {
      name: "employee_deleted",
      providerEvent: "employee.deleted",
      displayName: "Employee deleted",
      description: "An employee record was deleted (employee.deleted).",
      samplePayload: sample("employee.deleted", "f3a9c1d2-5b6e-4f70-8a91-b2c3d4e5f609", { changedFields: [] }),
    },
  ],
});
