/**
 * DigitalOcean: OAuth 2.0 authorization code (scope `read` or `read write`), client credentials in the
 * body; 30-day access tokens with refresh tokens. The identity is `GET /v2/account` (`account.uuid`).
 * No webhook section: DigitalOcean has no account webhooks.
 * Polled: finished actions (droplet power events, snapshots, resizes…) are read on a schedule from the
 * account's action list, newest first.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "digitalocean",
  displayName: "DigitalOcean",
  category: "code",
  description: "Read the droplets, apps and databases of a DigitalOcean team.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0069ff"/>' +
    '<circle cx="12" cy="12" r="5" fill="none" stroke="#fff" stroke-width="2.2"/></svg>',
  docs: [
    "https://docs.digitalocean.com/reference/api/oauth/",
    "https://docs.digitalocean.com/reference/api/digitalocean/#tag/Account",
    "https://docs.digitalocean.com/reference/api/digitalocean/#tag/Actions/operation/actions_list",
    "https://docs.digitalocean.com/reference/api/digitalocean/#section/Introduction/Rate-Limit",
  ],
  oauth: {
    authorizeUrl: "https://cloud.digitalocean.com/v1/oauth/authorize",
    tokenUrl: "https://cloud.digitalocean.com/v1/oauth/token",
    scopes: ["read"],
    scopeDescriptions: {
      read: "Read your DigitalOcean resources",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/v2/account",
    idPath: "account.uuid",
    displayNamePath: "account.email",
    metadata: { teamUuid: "account.team.uuid", teamName: "account.team.name" },
  },
  api: { baseUrl: "https://api.digitalocean.com" },
  triggers: [
    {
      name: "action_completed",
      displayName: "Action completed",
      description: "An action on a droplet, volume, image or other resource finished (completed or errored), read from the action list on a schedule.",
      providerEvent: "GET /v2/actions",
      // One action as the list answers it.
      samplePayload: {
        id: 36804636,
        status: "completed",
        type: "create",
        started_at: "2026-01-01T09:59:00Z",
        completed_at: "2026-01-01T10:00:00Z",
        resource_id: 3164444,
        resource_type: "droplet",
        region_slug: "nyc3",
      },
    },
  ],
  polling: {
    triggers: {
      // Newest first; an action still in progress has no `completed_at` and is forwarded once it has one.
      action_completed: {
        request: { path: "/v2/actions", query: { per_page: "50" } },
        items: "actions",
        id: "id",
        version: "completed_at",
        occurredAt: ["completed_at"],
        cursor: { from: "version" },
      },
    },
  },
});
