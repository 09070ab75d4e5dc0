/**
 * Slack: OAuth v2 user tokens and the Events API.
 */
import { declareConnector } from "../../declaration.ts";
import { asRecord, asString } from "../../json.ts";
import { shapeMessagePosted, shapeReactionAdded } from "./shapes.ts";
import { slackEventTriggers } from "./events.ts";
import { slackUrlVerification } from "./verification.ts";

const sampleMessage = {
  teamId: "T0001ABCD",
  channel: "C024BE91L",
  channelType: "channel",
  user: "U2147483697",
  text: "Deploy is green, shipping now :rocket:",
  ts: "1767261600.000200",
  threadTs: null,
  eventId: "Ev0PV52K21",
};

export default declareConnector({
  name: "slack",
  displayName: "Slack",
  category: "chat",
  description: "Messages, reactions and every other Events API event in the Slack workspaces a user can see.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#4a154b"/>' +
    '<path d="M5 15.5h11.5l2.5 3v-13a1.5 1.5 0 0 0-1.5-1.5h-12A1.5 1.5 0 0 0 4 5.5v8.5a1.5 1.5 0 0 0 1 1.5z" fill="#fff"/>' +
    '<path d="M8 8.5h8M8 11.5h5" stroke="#4a154b" stroke-width="1.5" stroke-linecap="round"/></svg>',
  docs: [
    "https://api.slack.com/authentication/oauth-v2",
    "https://api.slack.com/methods/oauth.v2.access",
    "https://api.slack.com/methods/auth.test",
    "https://api.slack.com/methods/auth.revoke",
    "https://api.slack.com/authentication/verifying-requests-from-slack",
    "https://api.slack.com/apis/events-api",
    "https://api.slack.com/events",
  ],
  oauth: {
    authorizeUrl: "https://slack.com/oauth/v2/authorize",
    tokenUrl: "https://slack.com/api/oauth.v2.access",
    // User-token scopes: the Events API delivers events the authorizing user can see.
    scopes: ["channels:history", "groups:history", "im:history", "mpim:history", "reactions:read"],
    scopeDescriptions: {
      "channels:history": "Read messages in public channels you are in",
      "groups:history": "Read messages in private channels you are in",
      "im:history": "Read your direct messages",
      "mpim:history": "Read your group direct messages",
      "reactions:read": "See emoji reactions on messages",
    },
    scopeSeparator: ",",
    scopeParam: "user_scope",
    pkce: false,
    clientAuth: "client_secret_post",
    // oauth.v2.access always answers HTTP 200 with `ok`; with user_scope only, the user token is in
    // authed_user, while a token-rotation refresh answers it at the top level.
    tokenResponse: { okPath: "ok", tokenPath: "authed_user" },
    refresh: true,
    // auth.revoke: the token itself authenticates (an Authorization bearer header); answers
    // {"ok":true,"revoked":true}.
    revocation: { url: "https://slack.com/api/auth.revoke", method: "POST", body: "form", clientAuth: "bearer_token" },
  },
  // Code: the user id is in the token answer (authed_user); auth.test only when it is not.
  identity: {
    async read({ token, fetchJson }) {
      const authedUser = asRecord(token.authed_user);
      const team = asRecord(token.team);
      let userId = asString(authedUser?.id);
      let teamId = asString(team?.id);
      let teamName = asString(team?.name);
      if (!userId) {
        // Not a user-token response (e.g. a refresh answer): ask Slack who the token belongs to.
        const me = asRecord(await fetchJson("/auth.test")) ?? {};
        if (me.ok !== true) throw new Error(`Slack auth.test failed: ${asString(me.error) ?? "unknown error"}`);
        userId = asString(me.user_id);
        teamId = asString(me.team_id);
        teamName = asString(me.team);
      }
      if (!userId) throw new Error("Slack identity has no user id");
      return {
        externalId: userId,
        displayName: teamName ? `${userId} @ ${teamName}` : userId,
        metadata: {
          teamId: teamId ?? null,
          teamName: teamName ?? null,
          enterpriseId: asString(asRecord(token.enterprise)?.id) ?? null,
        },
      };
    },
  },
  api: { baseUrl: "https://slack.com/api" },
  handshakes: [slackUrlVerification],
  webhook: {
    scheme: {
      type: "hmac",
      header: "x-slack-signature",
      prefix: "v0=",
      signedContent: "v0:{timestamp}:{body}",
      timestampHeader: "x-slack-request-timestamp",
      toleranceSeconds: 300,
    },
    event: { path: "event.type" },
    // The acting user, then every user whose installation the event was delivered for.
    routing: ["event.user", "authorizations[].user_id"],
    // Kept on Slack's retries (X-Slack-Retry-Num).
    deliveryId: { paths: ["event_id"] },
    occurredAt: ["event_time", "event.event_ts", "event.ts"],
  },
  triggers: [
    {
      name: "message_posted",
      providerEvent: "message",
      // Edits, joins, bot and system messages all carry a subtype.
      when: { absent: ["event.subtype"] },
      shape: shapeMessagePosted,
      displayName: "Message posted",
      description: "A new message (not an edit or a bot/system message) was posted in a conversation the user can see.",
      samplePayload: sampleMessage,
    },
    {
      name: "reaction_added",
      providerEvent: "reaction_added",
      shape: shapeReactionAdded,
      displayName: "Reaction added",
      description: "Someone added an emoji reaction to a message.",
      samplePayload: {
        teamId: "T0001ABCD",
        user: "U2147483697",
        reaction: "thumbsup",
        itemUser: "U0G9QF9C6",
        item: { type: "message", channel: "C024BE91L", ts: "1767261600.000200" },
        eventTs: "1767261660.000300",
        eventId: "Ev0PV52K25",
      },
    },
    ...slackEventTriggers,
  ],
});
