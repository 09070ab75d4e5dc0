/**
 * Spotify: the authorization code flow (with PKCE) and HTTP Basic client authentication.
 * Connect only: Spotify sends no webhooks.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "spotify",
  displayName: "Spotify",
  category: "other",
  description: "Connect Spotify listeners to read their profile.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#121212"/><circle cx="12" cy="12" r="7.5" fill="#1ed760"/>' +
    '<path d="M7.5 9.5c3-1 6.5-.7 9 .8M8 12.3c2.5-.7 5.2-.4 7.3.8M8.6 14.9c2-.5 4-.3 5.6.6" stroke="#121212" stroke-width="1.3" stroke-linecap="round" fill="none"/></svg>',
  docs: [
    "https://developer.spotify.com/documentation/web-api/tutorials/code-flow",
    "https://developer.spotify.com/documentation/web-api/concepts/scopes",
    "https://developer.spotify.com/documentation/web-api/reference/get-current-users-profile",
  ],
  oauth: {
    authorizeUrl: "https://accounts.spotify.com/authorize",
    tokenUrl: "https://accounts.spotify.com/api/token",
    apiUrl: "https://api.spotify.com/v1",
    scopes: ["user-read-email", "user-read-private"],
    scopeDescriptions: {
      "user-read-email": "Read your email address",
      "user-read-private": "Read your subscription details and country",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  identity: {
    path: "/me",
    idPath: "id",
    displayNamePath: "display_name",
    metadata: { email: "email", country: "country" },
  },
});
