/**
 * Zoom: OAuth 2.0 for general apps (HTTP Basic at the token endpoint, PKCE supported, 1-hour
 * access tokens with refresh tokens). Event subscriptions sign `x-zm-signature: v0=<hex
 * HMAC-SHA256 of "v0:{x-zm-request-timestamp}:{body}">` with the app's secret token and validate the
 * endpoint with `endpoint.url_validation`. Meeting events are routed by the host's user id.
 *
 * The validation request is signed like every event (x-zm-signature, x-zm-request-timestamp:
 * https://developers.zoom.us/docs/api/webhooks/#validate-your-webhook-endpoint; Zoom's own sample,
 * github.com/zoom/webhook-sample index.js, answers it only inside the verified branch), and its answer
 * is an HMAC under our secret: it is answered only after the signature check, else anyone could have
 * us sign `v0:{ts}:{forged body}` as a "plainToken".
 */
import { declareConnector } from "../../declaration.ts";
import { zoomUrlValidation } from "./verification.ts";

const meeting = {
  id: 85746065432,
  uuid: "4444AAAiAAAAAiAiAiiAii==",
  host_id: "z8yCxjabcdEFGHfp8uQ",
  topic: "Weekly planning",
  type: 8,
  start_time: "2026-01-05T15:00:00Z",
  timezone: "America/New_York",
  duration: 60,
};

export default declareConnector({
  name: "zoom",
  displayName: "Zoom",
  category: "video",
  description: "Meetings started and ended, participants joining and recordings completed on a Zoom user's meetings.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0b5cff"/>' +
    '<rect x="4.5" y="8" width="10.5" height="8" rx="2" fill="#fff"/><path d="M15.5 11 19.5 8.5v7L15.5 13z" fill="#fff"/></svg>',
  docs: [
    "https://developers.zoom.us/docs/integrations/oauth/",
    "https://developers.zoom.us/docs/api/users/#tag/users/GET/users/{userId}",
    "https://developers.zoom.us/docs/api/webhooks/",
    "https://developers.zoom.us/docs/api/meetings/events/",
  ],
  oauth: {
    authorizeUrl: "https://zoom.us/oauth/authorize",
    tokenUrl: "https://zoom.us/oauth/token",
    scopes: ["user:read:user"],
    scopeDescriptions: { "user:read:user": "View your Zoom user profile" },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_basic",
    refresh: true,
    // "Revoking an access token": POST /oauth/revoke, HTTP Basic client_id:client_secret, the token
    // as the form field `token`; answers {"status":"success"}.
    revocation: { url: "https://zoom.us/oauth/revoke", method: "POST", tokenParam: "token", body: "form", clientAuth: "client_secret_basic" },
  },
  identity: {
    path: "/users/me",
    idPath: "id",
    displayNamePath: "display_name",
    metadata: { accountId: "account_id", email: "email" },
  },
  api: { baseUrl: "https://api.zoom.us/v2" },
  handshakes: [zoomUrlValidation],
  webhook: {
    // Zoom states no replay window; Slack's five minutes, as for every other timestamped scheme here.
    scheme: {
      type: "hmac",
      header: "x-zm-signature",
      prefix: "v0=",
      signedContent: "v0:{timestamp}:{body}",
      timestampHeader: "x-zm-request-timestamp",
      toleranceSeconds: 300,
    },
    event: { path: "event" },
    routing: ["payload.object.host_id", "payload.operator_id"],
    occurredAt: ["event_ts"],
  },
  triggers: [
    {
      name: "meeting_started",
      displayName: "Meeting started",
      description: "A meeting hosted by the user started.",
      providerEvent: "meeting.started",
      samplePayload: {
        event: "meeting.started",
        event_ts: 1767625200123,
        payload: { account_id: "AAAAAABBBB", object: { ...meeting, start_time: "2026-01-05T15:00:12Z" } },
      },
    },
    {
      name: "meeting_ended",
      displayName: "Meeting ended",
      description: "A meeting hosted by the user ended.",
      providerEvent: "meeting.ended",
      samplePayload: {
        event: "meeting.ended",
        event_ts: 1767628800123,
        payload: { account_id: "AAAAAABBBB", object: { ...meeting, start_time: "2026-01-05T15:00:12Z", end_time: "2026-01-05T15:58:40Z" } },
      },
    },
    {
      name: "meeting_participant_joined",
      displayName: "Participant joined",
      description: "Someone joined a meeting hosted by the user.",
      providerEvent: "meeting.participant_joined",
      samplePayload: {
        event: "meeting.participant_joined",
        event_ts: 1767625260456,
        payload: {
          account_id: "AAAAAABBBB",
          object: {
            ...meeting,
            participant: {
              user_id: "16778240",
              user_name: "Jill Chill",
              id: "iFxeBPYun6SAiWUzBcEkX",
              participant_uuid: "55555AAAiAAAAAiAiAiiAii",
              join_time: "2026-01-05T15:01:00Z",
              email: "jchill@example.com",
              participant_user_id: "iFxeBPYun6SAiWUzBcEkX",
            },
          },
        },
      },
    },
    {
      name: "recording_completed",
      displayName: "Recording completed",
      description: "A cloud recording of the user's meeting is ready.",
      providerEvent: "recording.completed",
      samplePayload: {
        event: "recording.completed",
        event_ts: 1767629400789,
        payload: {
          account_id: "AAAAAABBBB",
          object: {
            ...meeting,
            share_url: "https://example.zoom.us/rec/share/abc123",
            total_size: 529758,
            recording_count: 1,
            recording_files: [
              {
                id: "ed6c2f27-2ae7-42f4-b3d0-835b493e4fa8",
                meeting_id: "4444AAAiAAAAAiAiAiiAii==",
                recording_start: "2026-01-05T15:00:12Z",
                recording_end: "2026-01-05T15:58:40Z",
                file_type: "MP4",
                file_extension: "MP4",
                file_size: 529758,
                play_url: "https://example.zoom.us/rec/play/Qg75t7xZBtEbAkjdlgbfdngBBBB",
                download_url: "https://example.zoom.us/rec/download/Qg75t7xZBtEbAkjdlgbfdngBBBB",
                status: "completed",
                recording_type: "shared_screen_with_speaker_view",
              },
            ],
          },
        },
        download_token: "abJhbGciOiJIUzUxMiJ9.eyJpc3MiOiJodHRwczovL2V2ZW50Lnpvb20udXMi",
      },
    },
  ],
});
