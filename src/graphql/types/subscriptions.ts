import { GraphQLError } from "graphql";
import { EventsDropped, LiveDegraded, LiveDegradedError, type Subscription, type Topic, type TopicMessage } from "../../events/bus.ts";
import type { DeliverySummary, DeliveryUpdateMessage, ForwardedEventMessage } from "../../events/messages.ts";
import { assertEventOfDeployment, eventsAfter, type ReplayedEvent, resumed } from "../../events/replay.ts";
import { builder } from "../builder.ts";
import { describeStreamedMessage } from "../eventStream.ts";
import type { GraphQLContext } from "../context.ts";
import { AccessEnded, whileAllowed } from "../liveAccess.ts";

/**
 * Live events of a deployment, over graphql-ws and SSE on /graphql. Resolved from the bus message
 * alone: a thousand subscribers never turn one event into a thousand database reads. Each stream
 * lasts only while its caller may read the deployment (../liveAccess.ts): a revocation on this
 * instance ends it at once; otherwise the caller is checked again at most once per
 * SUBSCRIPTION_ACCESS_RECHECK per subscription, from the session and API-key caches and one
 * membership query, and only when a message is about to be sent.
 */

// The DeliveryStatus enum of forwarding.ts, referenced by name so both surfaces share one type.
const DeliveryStatus = "DeliveryStatus" as never;

const DeliverySummaryRef = builder.objectRef<DeliverySummary>("DeliverySummary").implement({
  description: "The state of an event's delivery to the forwarding URL when the message was sent.",
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.field({ type: DeliveryStatus, resolve: (delivery) => delivery.status }),
    attempts: t.exposeInt("attempts"),
    lastStatusCode: t.exposeInt("lastStatusCode", { nullable: true }),
  }),
});

const ForwardedEvent = builder.objectRef<ForwardedEventMessage>("ForwardedEvent").implement({
  description: "An event accepted for forwarding, as it was recorded.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The event id (`evt_…`), also the `webhook-id` header of its delivery." }),
    type: t.exposeString("type", { description: "`<connector>.<trigger>`, e.g. `github.issue_opened`." }),
    connector: t.exposeString("connector"),
    trigger: t.exposeString("trigger"),
    account: t.exposeString("account"),
    occurredAt: t.field({ type: "DateTime", resolve: (event) => new Date(event.occurredAt) }),
    payload: t.field({ type: "JSON", description: "The `data` of the forwarded body.", resolve: (event) => event.payload }),
    resource: t.field({ type: "JSON", nullable: true, description: "The watched resource's params (the forwarded body's `resource`); null when not tied to a resource.", resolve: (event) => event.resource ?? null }),
    delivery: t.field({ type: DeliverySummaryRef, nullable: true, resolve: (event) => event.delivery }),
  }),
});

const DeliveryUpdate = builder.objectRef<DeliveryUpdateMessage>("DeliveryUpdate").implement({
  description: "A delivery changed: an attempt was made, it succeeded, or it failed for good.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The delivery's id." }),
    eventId: t.exposeID("eventId"),
    status: t.field({ type: DeliveryStatus, resolve: (delivery) => delivery.status }),
    attempts: t.exposeInt("attempts"),
    lastStatusCode: t.exposeInt("lastStatusCode", { nullable: true }),
    lastError: t.exposeString("lastError", { nullable: true }),
    nextAttemptAt: t.field({
      type: "DateTime",
      nullable: true,
      resolve: (delivery) => (delivery.nextAttemptAt ? new Date(delivery.nextAttemptAt) : null),
    }),
  }),
});

/** Subscribes once the bus is listening, so nothing published after this resolves is missed. Callers guard it with whileAllowed. */
async function live<T extends Topic>(ctx: GraphQLContext, topic: T, deploymentId: string): Promise<Subscription<TopicMessage<T>>> {
  const subscription = ctx.live.bus.listen(topic, deploymentId, ctx.settings.subscriptionBufferSize);
  try {
    await subscription.ready;
  } catch (error) {
    await subscription.return?.();
    if (error instanceof LiveDegradedError) throw liveDegraded("Subscribe again in a few seconds (with `after`, the last event id you received, to get what you missed).");
    throw error;
  }
  return subscription;
}

/** LIVE_DEGRADED: Redis, which relays events between instances, is unreachable from this instance. */
const LIVE_DEGRADED_RETRY_SECONDS = 5;
function liveDegraded(what: string): GraphQLError {
  return new GraphQLError(`Live events are paused: this instance cannot reach Redis, which relays events between instances. ${what}`, {
    extensions: { code: "LIVE_DEGRADED", retryAfter: LIVE_DEGRADED_RETRY_SECONDS },
  });
}

/**
 * The last result of a subscription that ends: a consumer that fell too far behind resubscribes and
 * reads the rest from `deliveries`; a caller who lost access is told why and what to do.
 */
function unlessEnded<T>(message: T | EventsDropped | LiveDegraded | AccessEnded, bufferSize: number): T {
  if (message instanceof AccessEnded) throw message.error;
  if (message instanceof LiveDegraded) {
    throw liveDegraded(
      "This subscription ended so that no event is missed silently. Subscribe again once it is back, with `after` set to the last event id you received: the missed events are replayed.",
    );
  }
  if (message instanceof EventsDropped) {
    throw new GraphQLError(
      `This subscriber fell more than ${bufferSize} messages behind, so ${message.dropped} were dropped and the subscription ended. ` +
        "Subscribe again; missed events are listed in deployment.deliveries.",
      { extensions: { code: "EVENTS_DROPPED", dropped: message.dropped } },
    );
  }
  return message;
}

builder.subscriptionType({});

builder.subscriptionFields((t) => ({
  forwardedEvents: t.field({
    type: ForwardedEvent,
    description:
      "Every event accepted for forwarding to this deployment, live (published after it is recorded). With `after` " +
      "(or SSE's Last-Event-ID header), first every later event, oldest first (at most SUBSCRIPTION_REPLAY_LIMIT, " +
      "the newest kept; the first message's `extensions.skipped` counts the rest), then live ones: no gap, no repeat. " +
      "Ends with an UNAUTHENTICATED or FORBIDDEN error (`extensions.accessEnded`) once the caller loses access.",
    args: {
      deploymentId: t.arg.id(),
      after: t.arg.id({ required: false, description: "The id of the last event the caller saw, of this deployment." }),
    },
    authScopes: (_root, args) => ({ deploymentMember: String(args.deploymentId) }),
    subscribe: async (_root, args, ctx) => {
      const deploymentId = String(args.deploymentId);
      const after = args.after ? String(args.after) : ctx.lastEventId;
      if (!after) return whileAllowed(ctx, deploymentId, await live(ctx, "forwardedEvent", deploymentId));
      await assertEventOfDeployment(ctx.sql, deploymentId, after);
      // Listening before reading the backlog is what leaves no gap at the seam (src/events/replay.ts).
      const subscription = await live(ctx, "forwardedEvent", deploymentId);
      let backlog;
      try {
        backlog = await eventsAfter(ctx.sql, deploymentId, after, ctx.settings.subscriptionReplayLimit);
      } catch (error) {
        await subscription.return?.();
        throw error;
      }
      // The replayed events are guarded too: they wait for a check a revocation started.
      return whileAllowed(ctx, deploymentId, resumed(subscription, backlog));
    },
    resolve: (message: ReplayedEvent | EventsDropped | LiveDegraded | AccessEnded, _args, ctx) => {
      const event = unlessEnded(message, ctx.settings.subscriptionBufferSize);
      describeStreamedMessage(ctx, { id: event.id, extensions: event.skipped ? { skipped: event.skipped } : undefined });
      return event;
    },
  }),
  deliveryUpdates: t.field({
    type: DeliveryUpdate,
    description:
      "Status changes of this deployment's deliveries: each attempt, success and final failure. " +
      "Ends with an UNAUTHENTICATED or FORBIDDEN error (`extensions.accessEnded`) once the caller loses access.",
    args: { deploymentId: t.arg.id() },
    authScopes: (_root, args) => ({ deploymentMember: String(args.deploymentId) }),
    subscribe: async (_root, args, ctx) => whileAllowed(ctx, String(args.deploymentId), await live(ctx, "deliveryUpdate", String(args.deploymentId))),
    resolve: (message: DeliveryUpdateMessage | EventsDropped | LiveDegraded | AccessEnded, _args, ctx) => unlessEnded(message, ctx.settings.subscriptionBufferSize),
  }),
}));
