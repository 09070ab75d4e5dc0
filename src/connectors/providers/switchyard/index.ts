/**
 * Switchyard's own events about connections (the connection lifecycle): never authorized (its
 * auth-url is 404), nothing arrives by webhook — Switchyard emits them (src/connections/lifecycle.ts)
 * through the same pipeline as a provider's events. Each carries the Connection and, for a failure,
 * the error.
 */
import { declareConnector } from "../../declaration.ts";

/** A Connection as GET /api/v1/connections shows it (src/connections/connection.ts), for the samples. */
const connection = {
  id: "cm5abc123def456ghi789jkl0",
  connector: "github",
  account: "alice",
  externalId: "583231",
  displayName: "octocat",
  status: "ACTIVE",
  scopes: ["read:user"],
  params: {},
  metadata: { login: "octocat", name: "The Octocat", htmlUrl: "https://github.com/octocat" },
  createdAt: "2026-01-01T00:00:00.000Z",
  lastRefreshedAt: null,
  lastEventAt: null,
  subscriptions: [],
  polling: null as Record<string, unknown> | null,
  resources: [],
  watching: "ACCOUNT" as const,
};

const lifecycle = (name: string, displayName: string, description: string, sample: Record<string, unknown>) => ({
  name,
  displayName,
  description,
  // Not a provider's event: the name Switchyard gives it.
  providerEvent: `switchyard.${name}`,
  samplePayload: sample,
});

export default declareConnector({
  name: "switchyard",
  displayName: "Switchyard",
  category: "other",
  description: "Switchyard's own events about your end users' connections: created, authorized again, needing a new authorization, deleted, a provider subscription failing, polling failing.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1f4e8c"/>' +
    '<path d="M4 8h9l3-3M4 16h9l3 3M13 8l3 8" stroke="#fff" stroke-width="1.8" fill="none" stroke-linecap="round"/></svg>',
  authMode: "NONE",
  triggers: [
    lifecycle("connection_created", "Connection created", "An end user authorized an account for the first time.", { connection, error: null }),
    lifecycle("connection_reauthorized", "Connection authorized again", "An existing connection was authorized again (after REAUTH_REQUIRED, a deletion, or once more).", {
      connection,
      error: null,
    }),
    lifecycle("connection_reauth_required", "Connection needs a new authorization", "The provider refused to refresh the connection's token: send the end user a new auth-url.", {
      connection: { ...connection, status: "REAUTH_REQUIRED" },
      error: { code: "invalid_grant", message: "The provider refused the refresh token." },
    }),
    lifecycle("connection_deleted", "Connection deleted", "The connection was deleted: its tokens are forgotten and its grant revoked where the provider allows.", {
      connection: { ...connection, status: "DISCONNECTED" },
      error: null,
    }),
    lifecycle("subscription_failed", "Provider subscription failed", "A subscription Switchyard holds at the provider for the connection failed for good.", {
      connection,
      error: { code: "subscription_failed", message: "The provider kept refusing to renew the subscription." },
    }),
    lifecycle(
      "polling_failed",
      "Polling failed",
      "Every poll of the connection has failed for POLLING_FAILED_AFTER (default 24 hours). Sent once per run of failures; a successful poll ends it.",
      {
        connection: {
          ...connection,
          polling: { lastPolledAt: "2026-01-02T00:05:00.000Z", lastSucceededAt: "2026-01-01T00:00:00.000Z", lastError: "GET /user/starred answered HTTP 503", consecutiveFailures: 289 },
        },
        error: { code: "polling_failed", message: "GET /user/starred answered HTTP 503" },
      },
    ),
  ],
});
