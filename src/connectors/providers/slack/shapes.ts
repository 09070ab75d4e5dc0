/**
 * The documented `data` of Slack's two original triggers (message_posted, reaction_added): a
 * camelCase subset of the event envelope, kept exactly as the first release forwarded it. Every
 * other Slack trigger forwards Slack's envelope unchanged.
 */
import { asRecord, asString } from "../../json.ts";

function messageData(envelope: Record<string, unknown>, event: Record<string, unknown>) {
  return {
    teamId: asString(envelope.team_id) ?? null,
    channel: asString(event.channel) ?? null,
    channelType: asString(event.channel_type) ?? null,
    user: asString(event.user) ?? null,
    text: asString(event.text) ?? "",
    ts: asString(event.ts) ?? null,
    threadTs: asString(event.thread_ts) ?? null,
    eventId: asString(envelope.event_id) ?? null,
  };
}

function reactionData(envelope: Record<string, unknown>, event: Record<string, unknown>) {
  const item = asRecord(event.item) ?? {};
  return {
    teamId: asString(envelope.team_id) ?? null,
    user: asString(event.user) ?? null,
    reaction: asString(event.reaction) ?? "",
    itemUser: asString(event.item_user) ?? null,
    item: {
      type: asString(item.type) ?? null,
      channel: asString(item.channel) ?? null,
      ts: asString(item.ts) ?? null,
    },
    eventTs: asString(event.event_ts) ?? null,
    eventId: asString(envelope.event_id) ?? null,
  };
}

const parts = (payload: Record<string, unknown>) => [payload, asRecord(payload.event) ?? {}] as const;

export const shapeMessagePosted = (payload: Record<string, unknown>): Record<string, unknown> => messageData(...parts(payload));
export const shapeReactionAdded = (payload: Record<string, unknown>): Record<string, unknown> => reactionData(...parts(payload));
