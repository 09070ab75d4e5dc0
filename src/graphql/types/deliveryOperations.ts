import { deliveryStats, type DeliveryStats, type DeliveryStatsBucket, type FailingEndpoint, MAX_STATS_HOURS } from "../../delivery/stats.ts";
import { buildForwardedRequest } from "../../delivery/forwardedRequest.ts";
import { USER_AGENT } from "../../delivery/send.ts";
import { eventLogPage } from "../../forwarding/eventLog.ts";
import type { GraphQLContext } from "../context.ts";
import { lookUpThenGuard } from "../lookUpThenGuard.ts";
import { builder } from "../builder.ts";
import { DeliveryStatus, ForwardingSettings } from "./forwarding.ts";

/**
 * Operating deliveries: the event log (keyset pages, filters), delivery health, and steering —
 * retry, cancel, bulk retry, pause and resume. Reads are for deployment members; steering for
 * owners, admins and the deployment's own API key.
 */

const EventFilter = builder.inputType("EventFilter", {
  fields: (t) => ({
    id: t.id({ required: false, description: "One event by its id (`evt_…`)." }),
    status: t.field({ type: DeliveryStatus, required: false, description: "The status of the event's latest delivery." }),
    connector: t.string({ required: false }),
    trigger: t.string({ required: false }),
    account: t.string({ required: false }),
    since: t.field({ type: "DateTime", required: false, description: "Accepted at or after." }),
    until: t.field({ type: "DateTime", required: false, description: "Accepted at or before." }),
  }),
});

type EventEdge = { id: string; cursor: string };
type LoadedEvents = Awaited<ReturnType<typeof findEvents>>;
type EventPage = { edges: EventEdge[]; hasNextPage: boolean; loaded?: Promise<LoadedEvents> };

async function findEvents(ctx: GraphQLContext, ids: string[]) {
  const events = await ctx.db.triggerEvent.findMany({ where: { id: { in: ids } } });
  const byId = new Map(events.map((event) => [event.id, event]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The page's events in one query, in page order, shared by `nodes` and every edge's `node`
 * (the prisma plugin loads whatever relations the client selected, batched).
 */
function loadEvents(ctx: GraphQLContext, page: EventPage) {
  page.loaded ??= findEvents(
    ctx,
    page.edges.map((edge) => edge.id),
  );
  return page.loaded;
}

const TriggerEventEdge = builder.objectRef<EventEdge & { page: EventPage }>("TriggerEventEdge").implement({
  fields: (t) => ({
    cursor: t.exposeString("cursor"),
    node: t.prismaField({
      type: "TriggerEvent",
      resolve: async (_query, edge, _args, ctx) => {
        const events = await loadEvents(ctx, edge.page);
        return events.find((event) => event.id === edge.id)!;
      },
    }),
  }),
});

const PageInfo = builder.objectRef<{ hasNextPage: boolean; endCursor: string | null }>("EventLogPageInfo").implement({
  fields: (t) => ({
    hasNextPage: t.exposeBoolean("hasNextPage"),
    endCursor: t.exposeString("endCursor", { nullable: true, description: "Pass as `after` for the next page." }),
  }),
});

const TriggerEventConnection = builder.objectRef<EventPage>("TriggerEventConnection").implement({
  description: "A page of the event log, newest first.",
  fields: (t) => ({
    edges: t.field({ type: [TriggerEventEdge], resolve: (page) => page.edges.map((edge) => ({ ...edge, page })) }),
    nodes: t.prismaField({ type: ["TriggerEvent"], resolve: (_query, page, _args, ctx) => loadEvents(ctx, page) }),
    pageInfo: t.field({
      type: PageInfo,
      resolve: (page) => ({ hasNextPage: page.hasNextPage, endCursor: page.edges.at(-1)?.cursor ?? null }),
    }),
  }),
});

const DeliveryStatsBucketType = builder.objectRef<DeliveryStatsBucket>("DeliveryStatsBucket").implement({
  description: "One hour of deliveryStats: deliveries created in it, by their status now.",
  fields: (t) => ({
    start: t.expose("start", { type: "DateTime" }),
    succeeded: t.exposeInt("succeeded"),
    failed: t.exposeInt("failed"),
    pending: t.exposeInt("pending"),
    cancelled: t.exposeInt("cancelled"),
    p50Ms: t.exposeInt("p50Ms", { nullable: true }),
    p95Ms: t.exposeInt("p95Ms", { nullable: true }),
    attemptsSucceeded: t.exposeInt("attemptsSucceeded", { description: "Attempts started in this hour that the forwarding URL answered 2xx." }),
    attemptsFailed: t.exposeInt("attemptsFailed", { description: "Attempts started in this hour that failed (another status, a timeout, a refused connection)." }),
  }),
});

const FailingEndpointType = builder.objectRef<FailingEndpoint>("FailingEndpoint").implement({
  description: "The forwarding URL's current run of failed attempts: the deployment's latest attempt failed.",
  fields: (t) => ({
    url: t.exposeString("url", { nullable: true, description: "Where the latest failed attempt went." }),
    consecutiveFailures: t.exposeInt("consecutiveFailures", { description: "Attempts in the window since the last successful one, all failed." }),
    since: t.expose("since", { type: "DateTime", description: "The first failed attempt of the run (within the window)." }),
    lastAttemptAt: t.expose("lastAttemptAt", { type: "DateTime" }),
    lastStatusCode: t.exposeInt("lastStatusCode", { nullable: true, description: "What the latest attempt was answered; null when no answer came (timeout, refused)." }),
    lastError: t.exposeString("lastError", { nullable: true }),
    nextAttemptAt: t.expose("nextAttemptAt", {
      type: "DateTime",
      nullable: true,
      description: "When the queue tries its next PENDING delivery; null when none is due (forwarding paused or disabled, or nothing left to retry).",
    }),
  }),
});

const DeliveryStatsType = builder.objectRef<DeliveryStats>("DeliveryStats").implement({
  description:
    "Deliveries created in the last `hours` hours (from the top of the first hour), by their status now. " +
    "Latencies are how long the forwarding URL took to answer their attempts. The attempt fields count attempts started in the window.",
  fields: (t) => ({
    hours: t.exposeInt("hours"),
    succeeded: t.exposeInt("succeeded"),
    failed: t.exposeInt("failed"),
    pending: t.exposeInt("pending"),
    cancelled: t.exposeInt("cancelled"),
    successRate: t.exposeFloat("successRate", { nullable: true, description: "succeeded / (succeeded + failed); null when both are 0." }),
    p50Ms: t.exposeInt("p50Ms", { nullable: true }),
    p95Ms: t.exposeInt("p95Ms", { nullable: true }),
    oldestPendingAt: t.expose("oldestPendingAt", {
      type: "DateTime",
      nullable: true,
      description: "Creation time of the deployment's oldest PENDING delivery (whatever the window).",
    }),
    queueDepth: t.exposeInt("queueDepth", { description: "PENDING deliveries of the deployment, held ones included (whatever the window)." }),
    attempts: t.exposeInt("attempts", { description: "Attempts that started in the window, whenever their delivery was created." }),
    attemptsSucceeded: t.exposeInt("attemptsSucceeded"),
    attemptsFailed: t.exposeInt("attemptsFailed"),
    attemptSuccessRate: t.exposeFloat("attemptSuccessRate", {
      nullable: true,
      description: "attemptsSucceeded / attempts; null when no attempt was made. Unlike successRate it drops as soon as attempts fail, not when a delivery gives up.",
    }),
    failingEndpoint: t.field({
      type: FailingEndpointType,
      nullable: true,
      description: "Set while the deployment's latest attempt (in the window) failed.",
      resolve: (stats) => stats.failingEndpoint,
    }),
    buckets: t.field({ type: [DeliveryStatsBucketType], description: "One per hour, oldest first.", resolve: (stats) => stats.buckets }),
  }),
});

builder.prismaObjectFields("Deployment", (t) => ({
  eventLog: t.field({
    type: TriggerEventConnection,
    description: "Events newest first (by when Switchyard accepted them), in keyset pages: any page costs what the first does.",
    args: {
      filter: t.arg({ type: EventFilter, required: false }),
      first: t.arg.int({ required: false, defaultValue: 50 }),
      after: t.arg.string({ required: false }),
    },
    resolve: (deployment, args, ctx) => eventLogPage(ctx.sql, deployment.id, args.filter ?? {}, args.first ?? 50, args.after ?? null),
  }),
  deliveryStats: t.field({
    type: DeliveryStatsType,
    args: { hours: t.arg.int({ required: false, defaultValue: 24, description: `The window: 1 to ${MAX_STATS_HOURS} hours (a week).` }) },
    resolve: (deployment, args, ctx) => deliveryStats(ctx.sql, deployment.id, args.hours ?? 24),
  }),
}));

const HttpHeader = builder.objectRef<{ name: string; value: string }>("HttpHeader").implement({
  fields: (t) => ({ name: t.exposeString("name"), value: t.exposeString("value") }),
});

const MASK = "••••••••";

builder.prismaObjectField("DeliveryAttempt", "requestHeaders", (t) =>
  t.field({
    type: [HttpHeader],
    description:
      "The headers this attempt was sent with, secrets masked (the signature and the operator header's value). " +
      "The operator header is the one configured now.",
    select: { startedAt: true, delivery: { select: { eventId: true, deploymentId: true } } },
    resolve: async (attempt, _args, ctx) => {
      const settings = await ctx.forwarding.settings(attempt.delivery.deploymentId);
      // The request as the worker builds it, with the secrets masked (the body is not shown here).
      const { headers } = buildForwardedRequest({
        eventId: attempt.delivery.eventId,
        body: "",
        at: attempt.startedAt,
        userAgent: USER_AGENT,
        operatorHeader: settings?.headerKey ? { name: settings.headerKey, value: MASK } : null,
        signing: { masked: `v1,${MASK}` },
      });
      return Object.entries(headers).map(([name, value]) => ({ name, value }));
    },
  }),
);

/** A delivery the caller may steer; someone else's is indistinguishable from none. */
async function steerableDelivery(ctx: GraphQLContext, id: string, verb: string) {
  await lookUpThenGuard(ctx, "Delivery", id, `${verb} deliveries`);
}

builder.mutationFields((t) => ({
  retryDelivery: t.prismaField({
    type: "Delivery",
    description: "PENDING: attempted now. FAILED: a new cycle of attempts starting now. Otherwise BAD_USER_INPUT.",
    args: { id: t.arg.id() },
    authScopes: { loggedIn: true },
    resolve: async (query, _root, args, ctx) => {
      const id = String(args.id);
      await steerableDelivery(ctx, id, "retry");
      await ctx.deliveries.retry(id);
      return ctx.db.delivery.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  cancelDelivery: t.prismaField({
    type: "Delivery",
    description: "PENDING → CANCELLED: never attempted again (an attempt already in flight is recorded). Otherwise BAD_USER_INPUT.",
    args: { id: t.arg.id() },
    authScopes: { loggedIn: true },
    resolve: async (query, _root, args, ctx) => {
      const id = String(args.id);
      await steerableDelivery(ctx, id, "cancel");
      await ctx.deliveries.cancel(id);
      return ctx.db.delivery.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  retryFailedDeliveries: t.int({
    description: "Every FAILED delivery created at or after `since` starts a new cycle of attempts now. Returns how many.",
    args: { deploymentId: t.arg.id(), since: t.arg({ type: "DateTime" }) },
    authScopes: (_root, args) => ({ deploymentAdmin: String(args.deploymentId) }),
    resolve: (_root, args, ctx) => ctx.deliveries.retryFailed(String(args.deploymentId), args.since),
  }),
  pauseForwarding: t.field({
    type: ForwardingSettings,
    description: "New deliveries are recorded but held (PENDING, no attempt) until resumeForwarding.",
    args: { deploymentId: t.arg.id() },
    authScopes: (_root, args) => ({ deploymentAdmin: String(args.deploymentId) }),
    resolve: async (_root, args, ctx) => {
      return ctx.forwarding.pause(String(args.deploymentId));
    },
  }),
  resumeForwarding: t.field({
    type: ForwardingSettings,
    description: "ACTIVE again (from PAUSED or DISABLED): held deliveries go out, oldest first.",
    args: { deploymentId: t.arg.id() },
    authScopes: (_root, args) => ({ deploymentAdmin: String(args.deploymentId) }),
    resolve: async (_root, args, ctx) => {
      return ctx.forwarding.resume(String(args.deploymentId));
    },
  }),
}));
