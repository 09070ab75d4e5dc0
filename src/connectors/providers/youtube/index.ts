/**
 * YouTube Data API v3: Google's OAuth 2.0 for web server apps (PKCE, `access_type=offline`) with the
 * read-only YouTube scope. The identity is the authorizing user's channel (`channels?mine=true`).
 * No webhook section: YouTube's push notifications are PubSubHubbub subscriptions per channel, unsigned unless
 * each subscription chooses its own secret.
 * Polled: the channel's own activities (uploads, likes, playlist additions) are read on a schedule
 * from `activities.list` (`mine=true`, `publishedAfter` the newest seen).
 */
import { declareConnector } from "../../declaration.ts";
import { googleOAuth } from "../gmail/google.ts";

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
    "https://developers.google.com/youtube/v3/docs/activities/list",
    "https://developers.google.com/youtube/v3/getting-started#quota",
  ],
  oauth: googleOAuth({
    "https://www.googleapis.com/auth/youtube.readonly": "See your YouTube account",
  }),
  identity: {
    path: "/youtube/v3/channels?part=snippet&mine=true",
    idPath: "items[].id",
    displayNamePath: "items[].snippet.title",
  },
  api: { baseUrl: "https://www.googleapis.com" },
  triggers: [
    {
      name: "channel_activity",
      displayName: "Channel activity",
      description: "The user's channel uploaded a video, liked one, added one to a playlist or subscribed to a channel (read from the activity list on a schedule).",
      providerEvent: "GET /youtube/v3/activities",
      // One activity resource as the list answers it (an upload).
      samplePayload: {
        kind: "youtube#activity",
        etag: "nT8DzX7F0ehcP8Dq5dK5lH2KzDY",
        id: "MTUxNTc3NzI0MTA4ODg0NTAzNjg2NzkyMDA=",
        snippet: {
          publishedAt: "2026-01-01T10:00:00+00:00",
          channelId: "UC_x5XG1OV2P6uZZ5FSM9Ttw",
          title: "New video",
          description: "",
          channelTitle: "My channel",
          type: "upload",
        },
        contentDetails: { upload: { videoId: "dQw4w9WgXcQ" } },
      },
    },
  ],
  polling: {
    // activities.list costs 1 quota unit of the project's 10,000 a day: one read a quarter hour per account.
    minIntervalSeconds: 900,
    triggers: {
      channel_activity: {
        request: {
          path: "/youtube/v3/activities",
          query: { part: "snippet,contentDetails", mine: "true", maxResults: "50", publishedAfter: "{cursor}" },
        },
        items: "items",
        id: "id",
        version: "snippet.publishedAt",
        occurredAt: ["snippet.publishedAt"],
        cursor: { from: "version" },
      },
    },
  },
});
