/**
 * Lever (recruiting) through OAuth 2.0 (`auth.lever.co`, an `audience` of the API, refresh tokens with
 * `offline_access`). Switchyard makes one Lever webhook per listed event and connection with the
 * account's token (`POST /v1/webhooks` `{url, event}`); Lever answers the webhook's
 * `configuration.signatureToken`, kept sealed as that subscription's secret. Every delivery carries
 * `token`, `triggeredAt` and `signature` in its body: the hex HMAC-SHA256 of `token + triggeredAt`
 * keyed with the signature token (the `hmac_body_fields` scheme). Webhooks do not expire; they are
 * deleted with `DELETE /v1/webhooks/{id}`.
 */
import { declareConnector } from "../../declaration.ts";
import { leverSignature } from "./signature.ts";

const envelope = (event: string, data: Record<string, unknown>) => ({
  triggeredAt: 1767369600000,
  event,
  signature: "8b5a4f3b1f1f0e6f3c2a9d1e7b0c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e",
  token: "6f1b9d0a0c2e4b7d9e8f",
  data,
});

export default declareConnector({
  name: "lever",
  displayName: "Lever",
  category: "other",
  description: "Applications, stage changes and hires in a Lever recruiting account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1f2a37"/>' +
    '<path d="M7 17 17 7M9 7h8v8" stroke="#fff" stroke-width="2" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  docs: [
    "https://hire.lever.co/developer/documentation#authentication",
    "https://hire.lever.co/developer/oauth",
    "https://hire.lever.co/developer/documentation#users",
    "https://hire.lever.co/developer/documentation#webhooks",
    "https://hire.lever.co/developer/documentation#create-a-webhook",
    "https://hire.lever.co/developer/documentation#delete-a-webhook",
  ],
  oauth: {
    authorizeUrl: "https://auth.lever.co/authorize",
    tokenUrl: "https://auth.lever.co/oauth/token",
    scopes: ["offline_access", "users:read:admin", "webhooks:write:admin", "opportunities:read:admin"],
    scopeDescriptions: {
      offline_access: "Keep this access while you are away (until you revoke it)",
      "users:read:admin": "Read the account's users (to know who connected)",
      "webhooks:write:admin": "Create and delete the webhooks that send Switchyard your account's events",
      "opportunities:read:admin": "Read candidates and their opportunities",
    },
    pkce: false,
    clientAuth: "client_secret_post",
    extraAuthorizeParams: { audience: "https://api.lever.co/v1/", prompt: "consent" },
    refresh: true,
  },
  identity: { path: "/users/me", idPath: "data.id", displayNamePath: "data.name", metadata: { email: "data.email" } },
  api: { baseUrl: "https://api.lever.co/v1" },
  webhook: {
    scheme: { own: leverSignature, params: { signaturePath: "signature", signedPaths: ["token", "triggeredAt"] } },
    event: { path: "event" },
    routing: ["data.userId"],
    deliveryId: { paths: ["token"] },
    occurredAt: ["triggeredAt"],
  },
  // One webhook per event: Lever's create takes a single `event`.
  subscription: {
    resources: [
      { resource: "applicationCreated", triggers: { application_created: ["applicationCreated"] } },
      { resource: "candidateStageChange", triggers: { candidate_stage_changed: ["candidateStageChange"] } },
      { resource: "candidateHired", triggers: { candidate_hired: ["candidateHired"] } },
    ],
    create: { method: "POST", path: "/webhooks", body: { url: "{subscriptionUrl}", event: "{resource}" } },
    delete: { method: "DELETE", path: "/webhooks/{providerId}" },
    answer: { idPath: "data.id", secretPath: "data.configuration.signatureToken" },
    // Lever webhooks do not expire; the lifetime is only when one is made afresh.
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "answer",
    webhook: {},
  },
  triggers: [
    {
      name: "application_created",
      providerEvent: "applicationCreated",
      displayName: "Application created",
      description: "A candidate applied, or was added to an opportunity (Lever's applicationCreated webhook).",
      samplePayload: envelope("applicationCreated", { applicationId: "cdb1e0e5-8f5e-4f3b-9a1c-0b7a7a8e2f10", contactId: "7f23e772-a2ed-4f3c-b9c7-fa9e3b6b6a3d", opportunityId: "7f23e772-a2ed-4f3c-b9c7-fa9e3b6b6a3d", candidateId: "7f23e772-a2ed-4f3c-b9c7-fa9e3b6b6a3d", postingId: "0a2b8c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d" }),
    },
    {
      name: "candidate_stage_changed",
      providerEvent: "candidateStageChange",
      displayName: "Candidate stage changed",
      description: "An opportunity moved to another pipeline stage (Lever's candidateStageChange webhook).",
      samplePayload: envelope("candidateStageChange", { fromStageId: "lead-new", toStageId: "applicant-new", contactId: "7f23e772-a2ed-4f3c-b9c7-fa9e3b6b6a3d", opportunityId: "7f23e772-a2ed-4f3c-b9c7-fa9e3b6b6a3d", candidateId: "7f23e772-a2ed-4f3c-b9c7-fa9e3b6b6a3d" }),
    },
    {
      name: "candidate_hired",
      providerEvent: "candidateHired",
      displayName: "Candidate hired",
      description: "An opportunity was archived as hired (Lever's candidateHired webhook).",
      samplePayload: envelope("candidateHired", { contactId: "7f23e772-a2ed-4f3c-b9c7-fa9e3b6b6a3d", opportunityId: "7f23e772-a2ed-4f3c-b9c7-fa9e3b6b6a3d", candidateId: "7f23e772-a2ed-4f3c-b9c7-fa9e3b6b6a3d" }),
    },
  ],
});
