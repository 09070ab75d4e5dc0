/**
 * Workable (recruiting) with an account API access token (Settings → Integrations → Apps → API
 * access token) as a bearer token, on the account's own host `https://{subdomain}.workable.com/spi/v3`.
 * Switchyard makes one webhook subscription per listed event and connection
 * (`POST /spi/v3/subscriptions` `{target, event}`, deleted with `DELETE /spi/v3/subscriptions/{id}`).
 * Workable signs every delivery with `X-Workable-Signature`: the hex HMAC-SHA256 of the body keyed
 * with the account token that made the subscription, i.e. the connection's own credential.
 */
import { declareConnector } from "../../declaration.ts";

// https://workable.readme.io/reference/candidate-events (the candidate, as candidate details shows it; abridged).
const candidate = {
  id: "ce4da98",
  name: "Lakita Marrero",
  firstname: "Lakita",
  lastname: "Marrero",
  headline: "Operations Manager",
  account: { subdomain: "groove-tech", name: "Groove Tech" },
  job: { shortcode: "GROOV005", title: "Office Manager" },
  stage: "Applied",
  disqualified: false,
  disqualification_reason: null,
  hired_at: null,
  sourced: false,
  profile_url: "https://groove-tech.workable.com/backend/jobs/128/browser/applied/candidate/7638",
  address: "Athens, Greece",
  phone: "+1 (555) 0100",
  email: "lakita_marrero@example.com",
  domain: "indeed.com",
  created_at: "2026-01-02T11:39:28Z",
  updated_at: "2026-01-02T11:39:28Z",
};

export default declareConnector({
  name: "workable",
  displayName: "Workable",
  category: "other",
  description: "Candidates created and moved between stages in a Workable recruiting account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#00756a"/>' +
    '<path d="M5 8l3 9 4-7 4 7 3-9" stroke="#fff" stroke-width="2" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  docs: [
    "https://workable.readme.io/reference/generate-an-access-token",
    "https://workable.readme.io/reference/accounts-subdomain",
    "https://workable.readme.io/reference/webhook-subscriptions-candidates-employees",
    "https://workable.readme.io/reference/webhooks",
    "https://workable.readme.io/reference/candidate-events",
    "https://workable.readme.io/reference/subscriptions",
  ],
  authMode: "API_KEY",
  params: [
    {
      name: "subdomain",
      description: "The Workable account's subdomain: groove-tech for groove-tech.workable.com.",
      pattern: "^[a-z0-9][a-z0-9-]{0,62}$",
      example: "groove-tech",
    },
  ],
  credentials: {
    fields: [
      {
        name: "api_token",
        label: "API access token",
        help: "In Workable, Settings → Integrations → Apps → Generate API token, with the r_candidates and w_candidates scopes.",
        secret: true,
        pattern: "^[A-Za-z0-9_-]{20,128}$",
        example: "3a1f5c9e7b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a",
      },
    ],
    whereToFind: "https://help.workable.com/hc/en-us/articles/115015785428-Generating-an-API-access-token",
    key: "api_token",
    test: { method: "GET", path: "/accounts/{subdomain}", idPath: "id", displayNamePath: "name" },
  },
  api: { baseUrl: "https://{subdomain}.workable.com/spi/v3", auth: { style: "bearer" } },
  webhook: {
    scheme: { type: "hmac", header: "x-workable-signature", encoding: "hex" },
    event: { path: "event_type" },
    routing: ["data.account.subdomain"],
    deliveryId: { paths: ["id"] },
    occurredAt: ["fired_at", "data.updated_at"],
  },
  // One subscription per event: Workable's create takes a single `event`.
  subscription: {
    resources: [
      { resource: "candidate_created", triggers: { candidate_created: ["candidate_created"] } },
      { resource: "candidate_moved", triggers: { candidate_moved: ["candidate_moved"] } },
    ],
    create: { method: "POST", path: "/subscriptions", body: { target: "{subscriptionUrl}", event: "{resource}" } },
    delete: { method: "DELETE", path: "/subscriptions/{providerId}" },
    answer: { idPath: "id" },
    // Workable subscriptions do not expire; the lifetime is only when one is made afresh.
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "none",
    // The subscription is the account's own: every delivery is the connection's (the body names the
    // account by its subdomain, not by the id the account read answers).
    webhook: { key: "access_token", keep: "all" },
  },
  triggers: [
    {
      name: "candidate_created",
      providerEvent: "candidate_created",
      displayName: "Candidate created",
      description: "A candidate applied or was added to a job (the Workable candidate).",
      samplePayload: { id: "4d3f7a1e", event_type: "candidate_created", resource_type: "candidate", fired_at: "2026-01-02T11:39:29Z", data: candidate },
    },
    {
      name: "candidate_moved",
      providerEvent: "candidate_moved",
      displayName: "Candidate moved",
      description: "A candidate moved to another stage of a job's pipeline (the Workable candidate as it is now).",
      samplePayload: { id: "9b1c2d3e", event_type: "candidate_moved", resource_type: "candidate", fired_at: "2026-01-03T09:00:00Z", data: { ...candidate, stage: "Interview", updated_at: "2026-01-03T09:00:00Z" } },
    },
  ],
});
