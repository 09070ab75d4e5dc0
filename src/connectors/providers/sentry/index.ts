/**
 * Sentry: OAuth 2.0 for Sentry API applications. Connect only: Sentry's signed webhooks come from
 * integration-platform installations and are identified by the installation, not by the user who
 * authorized an API application.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "sentry",
  displayName: "Sentry",
  category: "monitoring",
  description: "Read the organizations, projects and issues a Sentry user can see.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#362d59"/>' +
    '<path d="M5 17.5h3.5a6 6 0 0 0-3-5M8.5 9.2 12 4l7 13.5h-4a9.5 9.5 0 0 0-4.6-8" stroke="#fff" stroke-width="1.6" fill="none" stroke-linejoin="round"/></svg>',
  docs: ["https://docs.sentry.io/api/auth/", "https://docs.sentry.io/api/permissions/"],
  oauth: {
    authorizeUrl: "https://sentry.io/oauth/authorize/",
    tokenUrl: "https://sentry.io/oauth/token/",
    scopes: ["org:read", "project:read", "event:read"],
    scopeDescriptions: {
      "org:read": "See your organizations and teams",
      "project:read": "See your projects",
      "event:read": "See issues and events",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  // The API root describes the authenticated user.
  identity: {
    path: "/",
    idPath: "user.id",
    displayNamePath: "user.name",
    metadata: { email: "user.email" },
  },
  api: { baseUrl: "https://sentry.io/api/0" },
});
