/**
 * Spotify: the authorization code flow (with PKCE) and HTTP Basic client authentication.
 * Spotify sends no webhooks: plays are read on a schedule from the recently-played list (polling).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "spotify",
  displayName: "Spotify",
  category: "other",
  description: "Connect Spotify listeners to read their profile and the tracks they play.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#121212"/><circle cx="12" cy="12" r="7.5" fill="#1ed760"/>' +
    '<path d="M7.5 9.5c3-1 6.5-.7 9 .8M8 12.3c2.5-.7 5.2-.4 7.3.8M8.6 14.9c2-.5 4-.3 5.6.6" stroke="#121212" stroke-width="1.3" stroke-linecap="round" fill="none"/></svg>',
  docs: [
    "https://developer.spotify.com/documentation/web-api/tutorials/code-flow",
    "https://developer.spotify.com/documentation/web-api/concepts/scopes",
    "https://developer.spotify.com/documentation/web-api/reference/get-current-users-profile",
    "https://developer.spotify.com/documentation/web-api/reference/get-recently-played",
  ],
  oauth: {
    authorizeUrl: "https://accounts.spotify.com/authorize",
    tokenUrl: "https://accounts.spotify.com/api/token",
    scopes: ["user-read-email", "user-read-private", "user-read-recently-played"],
    scopeDescriptions: {
      "user-read-email": "Read your email address",
      "user-read-private": "Read your subscription details and country",
      "user-read-recently-played": "See the tracks you played recently",
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
  api: { baseUrl: "https://api.spotify.com/v1" },
  triggers: [
    {
      name: "track_played",
      displayName: "Track played",
      description: "The listener played a track (for more than 30 seconds; Spotify lists a track once it has finished).",
      providerEvent: "GET /me/player/recently-played",
      // One PlayHistoryObject as the list answers it.
      samplePayload: {
        track: {
          id: "4iV5W9uYEdYUVa79Axb7Rh",
          name: "New Song",
          uri: "spotify:track:4iV5W9uYEdYUVa79Axb7Rh",
          duration_ms: 215000,
          artists: [{ id: "0OdUWJ0sBjDrqHygGUXeCF", name: "Band", uri: "spotify:artist:0OdUWJ0sBjDrqHygGUXeCF" }],
          album: { id: "2up3OPMp9Tb4dAKM2erWXQ", name: "Album", uri: "spotify:album:2up3OPMp9Tb4dAKM2erWXQ" },
        },
        played_at: "2026-01-01T10:00:00.000Z",
        context: { type: "playlist", uri: "spotify:playlist:37i9dQZF1DXcBWIGoYBM5M" },
      },
    },
  ],
  polling: {
    triggers: {
      // `after`: a Unix time in ms, items after it; the answer's `cursors.after` is the next one
      // (null when nothing is new). At most 50 items per request.
      track_played: {
        request: { path: "/me/player/recently-played", query: { limit: "50", after: "{cursor}" } },
        items: "items",
        id: "track.id",
        version: "played_at",
        occurredAt: ["played_at"],
        cursor: { from: "answer", paths: ["cursors.after"] },
      },
    },
  },
});
