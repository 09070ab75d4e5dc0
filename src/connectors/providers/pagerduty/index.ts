/**
 * PagerDuty: OAuth 2.0 for PagerDuty apps (PKCE supported, refresh tokens). No webhook section: V3
 * webhook payloads name the incident and the acting agent, not the account that subscribed.
 * Polled: incidents are read on a schedule from the incident list, newest first
 * (`sort_by=created_at:desc`, the last 30 days).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "pagerduty",
  displayName: "PagerDuty",
  category: "monitoring",
  description: "Read the incidents, services and on-call schedules of a PagerDuty account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#048a24"/>' +
    '<path d="M8 19V5h4.5a4 4 0 0 1 0 8H8" stroke="#fff" stroke-width="2.2" fill="none" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developer.pagerduty.com/docs/oauth-functionality",
    "https://developer.pagerduty.com/api-reference/",
    "https://developer.pagerduty.com/api-reference/9d0b4b12e36f9-list-incidents",
    "https://developer.pagerduty.com/docs/rest-api-rate-limits",
  ],
  oauth: {
    authorizeUrl: "https://identity.pagerduty.com/oauth/authorize",
    tokenUrl: "https://identity.pagerduty.com/oauth/token",
    scopes: ["users.read", "incidents.read", "services.read"],
    scopeDescriptions: {
      "users.read": "Read the users of your account, including your own profile",
      "incidents.read": "Read incidents",
      "services.read": "Read services",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/users/me",
    idPath: "user.id",
    displayNamePath: "user.name",
    metadata: { email: "user.email" },
  },
  api: { baseUrl: "https://api.pagerduty.com" },
  triggers: [
    {
      name: "incident_triggered",
      displayName: "Incident triggered",
      description: "An incident was opened on a service the account can see (read from the incident list on a schedule).",
      providerEvent: "GET /incidents",
      // One incident as the list answers it.
      samplePayload: {
        id: "PT4KHLK",
        type: "incident",
        summary: "[#1234] The server is on fire.",
        self: "https://api.pagerduty.com/incidents/PT4KHLK",
        html_url: "https://subdomain.pagerduty.com/incidents/PT4KHLK",
        incident_number: 1234,
        title: "The server is on fire.",
        created_at: "2026-01-01T10:00:00Z",
        status: "triggered",
        urgency: "high",
        incident_key: "baf7cf21b1da41b4b0221008339ff357",
        service: { id: "PIJ90N7", type: "service_reference", summary: "My Mail Service", self: "https://api.pagerduty.com/services/PIJ90N7" },
        assignments: [{ at: "2026-01-01T10:00:00Z", assignee: { id: "PXPGF42", type: "user_reference", summary: "Earline Greenholt" } }],
      },
    },
  ],
  polling: {
    triggers: {
      // Newest first; the versioned Accept header is the REST API v2's.
      incident_triggered: {
        request: {
          path: "/incidents",
          query: { sort_by: "created_at:desc", limit: "100" },
          headers: { accept: "application/vnd.pagerduty+json;version=2" },
        },
        items: "incidents",
        id: "id",
        version: "created_at",
        occurredAt: ["created_at"],
        cursor: { from: "version" },
      },
    },
  },
});
