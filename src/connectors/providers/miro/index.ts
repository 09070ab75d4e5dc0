/**
 * Miro: OAuth 2.0 authorization code for one team (chosen on Miro's consent screen); scopes
 * space-separated; apps with expiring tokens get one-hour access tokens and refresh tokens. The identity
 * is the token's context (`GET /v1/oauth-token`: user and team). No webhook section: Miro's webhooks are board
 * subscriptions created through the API with the account's token (per-account).
 * Polled: boards are read on a schedule from the board list, most recently modified first
 * (`sort=last_modified`).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "miro",
  displayName: "Miro",
  category: "design",
  description: "Read the boards and board items of a Miro team.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#2d2d3a"/>' +
    '<path d="M12 5l7 3.5-7 3.5-7-3.5zM5 12l7 3.5 7-3.5M5 15.5 12 19l7-3.5" fill="none" stroke="#fff" stroke-width="1.6" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developers.miro.com/docs/getting-started-with-oauth",
    "https://developers.miro.com/reference/get-access-token-context",
    "https://developers.miro.com/docs/expiring-access-and-refresh-tokens",
    "https://developers.miro.com/reference/get-boards",
    "https://developers.miro.com/reference/rate-limiting",
    "https://developers.miro.com/reference/revoke-token-v2",
  ],
  oauth: {
    authorizeUrl: "https://miro.com/oauth/authorize",
    tokenUrl: "https://api.miro.com/v1/oauth/token",
    scopes: ["boards:read"],
    scopeDescriptions: {
      "boards:read": "Read your Miro boards and their items",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
    // Miro's REST API specification (miroapp/api-clients, operation revoke-token-v2): POST
    // /v2/oauth/revoke with JSON `accessToken`, `clientId`, `clientSecret`; the refresh token goes
    // with the access token; 204. (The v1 endpoint took the token in the URL and is deprecated.)
    revocation: { url: "https://api.miro.com/v2/oauth/revoke", method: "POST", tokenParam: "accessToken", body: "json", clientAuth: "client_secret_post", clientFields: { id: "clientId", secret: "clientSecret" }, token: "access" },
  },
  identity: {
    path: "/v1/oauth-token",
    idPath: "user.id",
    displayNamePath: "user.name",
    metadata: { teamId: "team.id", teamName: "team.name" },
  },
  api: { baseUrl: "https://api.miro.com" },
  triggers: [
    {
      name: "board_modified",
      displayName: "Board created or modified",
      description: "A board the user can access was created or changed, read from the board list on a schedule.",
      providerEvent: "GET /v2/boards",
      // One board as the list answers it.
      samplePayload: {
        id: "uXjVOD6LSME=",
        type: "board",
        name: "Sprint planning",
        description: "Boards for the Q1 sprints",
        viewLink: "https://miro.com/app/board/uXjVOD6LSME=",
        createdAt: "2026-01-01T09:00:00Z",
        modifiedAt: "2026-01-01T10:00:00Z",
        owner: { id: "3458764517517852417", name: "John Smith", type: "user" },
        modifiedBy: { id: "3458764517517852417", name: "John Smith", type: "user" },
        team: { id: "3458764517517819000", name: "My team", type: "team" },
      },
    },
  ],
  polling: {
    triggers: {
      // Most recently modified first; the position is the newest `modifiedAt` seen.
      board_modified: {
        request: { path: "/v2/boards", query: { sort: "last_modified", limit: "50" } },
        items: "data",
        id: "id",
        version: "modifiedAt",
        occurredAt: ["modifiedAt"],
        cursor: { from: "version" },
      },
    },
  },
});
