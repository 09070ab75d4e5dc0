/**
 * Strava: OAuth 2.0 authorization code, comma-separated scopes, client credentials in the body;
 * six-hour access tokens with refresh tokens. The identity is the authenticated athlete
 * (`GET /api/v3/athlete`). No webhook section: Strava's webhook subscription is app-level (one per app, events
 * name the athlete in `owner_id`) but its events carry no signature or secret to verify.
 * Polled: the athlete's activities are read on a schedule from their activity list, newest first.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "strava",
  displayName: "Strava",
  category: "other",
  description: "Read the activities and profile of a Strava athlete.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#fc4c02"/>' +
    '<path d="M12 6l7 12H5z" fill="#fff"/></svg>',
  docs: [
    "https://developers.strava.com/docs/authentication/",
    "https://developers.strava.com/docs/reference/#api-Athletes-getLoggedInAthlete",
    "https://developers.strava.com/docs/webhooks/",
    "https://developers.strava.com/docs/reference/#api-Activities-getLoggedInAthleteActivities",
    "https://developers.strava.com/docs/rate-limits/",
  ],
  oauth: {
    authorizeUrl: "https://www.strava.com/oauth/authorize",
    tokenUrl: "https://www.strava.com/oauth/token",
    scopes: ["read", "activity:read"],
    scopeDescriptions: {
      read: "Read your public profile and segments",
      "activity:read": "Read your activities visible to Everyone and Followers",
    },
    scopeSeparator: ",",
    pkce: false,
    clientAuth: "client_secret_post",
    extraAuthorizeParams: { approval_prompt: "auto" },
    refresh: true,
    // developers.strava.com/docs/authentication/ ("Deauthorization"): POST /oauth/deauthorize with the
    // access token as the query parameter `access_token`; every access and refresh token the app has
    // for the athlete is invalidated and the app leaves the athlete's settings.
    revocation: { url: "https://www.strava.com/oauth/deauthorize", method: "POST", tokenParam: "access_token", body: "query", clientAuth: "none", token: "access" },
  },
  identity: {
    path: "/api/v3/athlete",
    idPath: "id",
    displayNamePath: "username",
    metadata: { firstName: "firstname", lastName: "lastname" },
  },
  api: { baseUrl: "https://www.strava.com" },
  triggers: [
    {
      name: "activity_created",
      displayName: "Activity uploaded",
      description: "The athlete recorded or uploaded an activity (read from their activity list on a schedule).",
      providerEvent: "GET /api/v3/athlete/activities",
      // One SummaryActivity as the list answers it.
      samplePayload: {
        resource_state: 2,
        athlete: { id: 134815, resource_state: 1 },
        name: "Happy Friday",
        distance: 24931.4,
        moving_time: 4500,
        elapsed_time: 4500,
        total_elevation_gain: 0,
        type: "Ride",
        sport_type: "MountainBikeRide",
        id: 154504250376823,
        start_date: "2026-01-01T10:00:00Z",
        start_date_local: "2026-01-01T11:00:00Z",
        timezone: "(GMT+01:00) Europe/Paris",
        private: false,
        visibility: "everyone",
      },
    },
  ],
  polling: {
    // The limits are per application (200 reads a quarter hour, 2,000 a day): one read a quarter hour per athlete.
    minIntervalSeconds: 900,
    triggers: {
      activity_created: {
        request: { path: "/api/v3/athlete/activities", query: { per_page: "30" } },
        id: "id",
        version: "start_date",
        occurredAt: ["start_date"],
        cursor: { from: "version" },
      },
    },
  },
});
