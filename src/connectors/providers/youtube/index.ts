/**
 * YouTube Data API v3: Google's OAuth 2.0 for web server apps (PKCE, `access_type=offline`) with the
 * read-only YouTube scope. The identity is the authorizing user's channel (`channels?mine=true`).
 * Connect only: YouTube's push notifications are PubSubHubbub subscriptions per channel, unsigned unless
 * each subscription chooses its own secret.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "youtube",
  displayName: "YouTube",
  category: "video",
  description: "Read the channel, videos and playlists of a YouTube account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#cc0000"/>' +
    '<path d="M10 8.5v7l6-3.5z" fill="#fff"/></svg>',
  docs: [
    "https://developers.google.com/youtube/v3/guides/auth/server-side-web-apps",
    "https://developers.google.com/youtube/v3/docs/channels/list",
    "https://developers.google.com/youtube/v3/guides/push_notifications",
  ],
  oauth: {
    authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    apiUrl: "https://www.googleapis.com",
    scopes: ["https://www.googleapis.com/auth/youtube.readonly"],
    scopeDescriptions: {
      "https://www.googleapis.com/auth/youtube.readonly": "See your YouTube account",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_post",
    extraAuthorizeParams: { access_type: "offline", prompt: "consent", include_granted_scopes: "true" },
    refresh: true,
  },
  identity: {
    path: "/youtube/v3/channels?part=snippet&mine=true",
    idPath: "items[].id",
    displayNamePath: "items[].snippet.title",
  },
});
