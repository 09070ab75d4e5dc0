/**
 * PagerDuty: OAuth 2.0 for PagerDuty apps (PKCE supported, refresh tokens). Connect only: V3
 * webhook payloads name the incident and the acting agent, not the account that subscribed.
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
  ],
  oauth: {
    authorizeUrl: "https://identity.pagerduty.com/oauth/authorize",
    tokenUrl: "https://identity.pagerduty.com/oauth/token",
    apiUrl: "https://api.pagerduty.com",
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
});
