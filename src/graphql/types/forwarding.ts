import { listDeliveries, listEvents } from "../../forwarding/listing.ts";
import type { ForwardingSettingsView, TriggerRef } from "../../forwarding/settings.ts";
import { builder } from "../builder.ts";
import { lookUpThenGuard } from "../lookUpThenGuard.ts";

/**
 * Trigger Forwarding in the API: the settings and trigger list, the events received, their
 * deliveries and attempt logs, replay and test events. Reads are for deployment members; changes
 * for owners, admins and the deployment's API key.
 */

const TriggerRefType = builder.objectRef<TriggerRef>("TriggerRef").implement({
  description: "A connector's trigger, e.g. { connector: \"github\", trigger: \"issue_opened\" }.",
  fields: (t) => ({ connector: t.exposeString("connector"), trigger: t.exposeString("trigger") }),
});

const TriggerRefInput = builder.inputType("TriggerRefInput", {
  fields: (t) => ({ connector: t.string(), trigger: t.string() }),
});

const ForwardingStatus = builder.enumType("ForwardingStatus", {
  description:
    "ACTIVE: deliveries go out. PAUSED (pauseForwarding) and DISABLED (every attempt failed for FORWARDING_DISABLE_AFTER): " +
    "new deliveries are recorded but held, none is dropped; resumeForwarding sends them, oldest first.",
  values: ["ACTIVE", "PAUSED", "DISABLED"] as const,
});

export const ForwardingSettings = builder.objectRef<ForwardingSettingsView>("ForwardingSettings").implement({
  description: "Where a deployment's events are forwarded, with which header, and which triggers.",
  fields: (t) => ({
    forwardingUrl: t.exposeString("forwardingUrl"),
    headerKey: t.exposeString("headerKey", { nullable: true }),
    headerValueSet: t.exposeBoolean("headerValueSet", { description: "Whether a header value is stored. The value itself is never returned." }),
    triggers: t.field({ type: [TriggerRefType], description: "The Forwarding Trigger List.", resolve: (s) => s.triggers }),
    status: t.field({ type: ForwardingStatus, resolve: (s) => s.status }),
    disabledReason: t.exposeString("disabledReason", { nullable: true, description: "Why forwarding was DISABLED; null otherwise." }),
    statusChangedAt: t.expose("statusChangedAt", { type: "DateTime", nullable: true, description: "When the current pause or disable began." }),
    failingSince: t.expose("failingSince", {
      type: "DateTime",
      nullable: true,
      description: "Since when every attempt to the forwarding URL has failed; null when the latest one succeeded.",
    }),
    lastSuccessAt: t.expose("lastSuccessAt", { type: "DateTime", nullable: true, description: "About when an attempt last succeeded (to the minute)." }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const ForwardingSettingsInput = builder.inputType("ForwardingSettingsInput", {
  fields: (t) => ({
    forwardingUrl: t.string(),
    headerKey: t.string({ required: false }),
    headerValue: t.string({
      required: false,
      description: "Leave out (or empty) to keep the stored value when headerKey is given; it is shown masked and never returned.",
    }),
    triggers: t.field({ type: [TriggerRefInput] }),
  }),
});

export const DeliveryStatus = builder.enumType("DeliveryStatus", {
  description:
    "PENDING: queued, waiting for a retry, or held (forwarding paused or disabled, or no URL yet). SUCCEEDED: a 2xx came back. " +
    "FAILED: retries used up, or 410 Gone. CANCELLED: an operator cancelled it; never attempted again.",
  values: ["PENDING", "SUCCEEDED", "FAILED", "CANCELLED"] as const,
});

builder.prismaObject("TriggerEvent", {
  description: "An event received from a provider (or a test event), as stored.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "`evt_…`; also the `webhook-id` of every delivery of it." }),
    type: t.string({ description: "`<connector>.<trigger>`", resolve: (event) => `${event.connector}.${event.trigger}` }),
    connector: t.exposeString("connector"),
    trigger: t.exposeString("trigger"),
    account: t.exposeString("account"),
    occurredAt: t.expose("occurredAt", { type: "DateTime" }),
    receivedAt: t.expose("receivedAt", { type: "DateTime" }),
    payload: t.expose("payload", { type: "JSON", description: "The `data` of the forwarded body." }),
    deliveries: t.relation("deliveries", {
      description: "Empty when the trigger was not in the Forwarding Trigger List when the event arrived.",
      query: { orderBy: { createdAt: "asc" } },
    }),
  }),
});

builder.prismaObject("Delivery", {
  description: "An event's way to the forwarding URL: retried on a schedule until a 2xx, 410 Gone, or the schedule runs out.",
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.field({ type: DeliveryStatus, resolve: (delivery) => delivery.status }),
    url: t.exposeString("url", {
      nullable: true,
      description: "Where the latest attempt went, or the next one goes (the forwarding URL in force); null while no URL is saved.",
    }),
    attempts: t.exposeInt("attempts"),
    nextAttemptAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the next attempt is due; null once the delivery is over, and while it is held (paused, disabled, no URL).",
      resolve: (delivery) => (delivery.status === "PENDING" ? delivery.nextAttemptAt : null),
    }),
    lastStatusCode: t.exposeInt("lastStatusCode", { nullable: true }),
    lastError: t.exposeString("lastError", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    completedAt: t.expose("completedAt", { type: "DateTime", nullable: true }),
    event: t.relation("event"),
    attemptLog: t.relation("attemptLog", { query: { orderBy: { number: "asc" } } }),
  }),
});

builder.prismaObject("DeliveryAttempt", {
  description: "One try of a delivery.",
  fields: (t) => ({
    number: t.exposeInt("number"),
    url: t.exposeString("url", { nullable: true, description: "Where this attempt went." }),
    startedAt: t.expose("startedAt", { type: "DateTime" }),
    durationMs: t.exposeInt("durationMs"),
    statusCode: t.exposeInt("statusCode", { nullable: true, description: "Null when no HTTP answer came back." }),
    error: t.exposeString("error", { nullable: true, description: "Timeout, refused connection, blocked address…" }),
    responseBody: t.exposeString("responseBody", { nullable: true, description: "The first 4 KiB of the answer." }),
    retryAfterSeconds: t.exposeInt("retryAfterSeconds", {
      nullable: true,
      description:
        "What the receiver's Retry-After asked for, in seconds, when it answered 429 or 503 with one. The next attempt waits that long when it is more than the retry schedule's step, at most an hour.",
    }),
  }),
});

builder.prismaObjectFields("Deployment", (t) => ({
  forwardingSettings: t.field({
    type: ForwardingSettings,
    nullable: true,
    description: "Null until a forwarding URL is saved.",
    resolve: (deployment, _args, ctx) => ctx.forwarding.settings(deployment.id),
  }),
  events: t.prismaField({
    type: ["TriggerEvent"],
    description: "Events received, newest first.",
    args: {
      offset: t.arg.int({ required: false, defaultValue: 0 }),
      limit: t.arg.int({ required: false, defaultValue: 20 }),
      trigger: t.arg({ type: TriggerRefInput, required: false }),
    },
    resolve: (query, deployment, args, ctx) =>
      listEvents(ctx.db, query, deployment.id, { offset: args.offset ?? 0, limit: args.limit ?? 20, trigger: args.trigger ?? undefined }),
  }),
  deliveries: t.prismaField({
    type: ["Delivery"],
    description: "Deliveries to the forwarding URL, newest first.",
    args: {
      offset: t.arg.int({ required: false, defaultValue: 0 }),
      limit: t.arg.int({ required: false, defaultValue: 20 }),
      status: t.arg({ type: DeliveryStatus, required: false }),
    },
    resolve: (query, deployment, args, ctx) =>
      listDeliveries(ctx.db, query, deployment.id, { offset: args.offset ?? 0, limit: args.limit ?? 20, status: args.status ?? undefined }),
  }),
}));

builder.mutationFields((t) => ({
  saveForwardingSettings: t.field({
    type: ForwardingSettings,
    description: "Replaces the forwarding URL, header and Forwarding Trigger List at once (the console's Save Changes).",
    args: { deploymentId: t.arg.id(), input: t.arg({ type: ForwardingSettingsInput }) },
    authScopes: (_root, args) => ({ deploymentAdmin: String(args.deploymentId) }),
    resolve: (_root, args, ctx) => ctx.forwarding.save(String(args.deploymentId), args.input).finally(ctx.subscriptions.changed),
  }),
  addForwardingTrigger: t.field({
    type: ForwardingSettings,
    args: { deploymentId: t.arg.id(), trigger: t.arg({ type: TriggerRefInput }) },
    authScopes: (_root, args) => ({ deploymentAdmin: String(args.deploymentId) }),
    resolve: (_root, args, ctx) => ctx.forwarding.addTrigger(String(args.deploymentId), args.trigger).finally(ctx.subscriptions.changed),
  }),
  removeForwardingTrigger: t.field({
    type: ForwardingSettings,
    args: { deploymentId: t.arg.id(), trigger: t.arg({ type: TriggerRefInput }) },
    authScopes: (_root, args) => ({ deploymentAdmin: String(args.deploymentId) }),
    resolve: (_root, args, ctx) => ctx.forwarding.removeTrigger(String(args.deploymentId), args.trigger).finally(ctx.subscriptions.changed),
  }),
  replayDelivery: t.prismaField({
    type: "Delivery",
    description: "Queues a succeeded or failed delivery again, now, with the same webhook-id.",
    args: { id: t.arg.id() },
    authScopes: { loggedIn: true },
    resolve: async (query, _root, args, ctx) => {
      const id = String(args.id);
      await lookUpThenGuard(ctx, "Delivery", id, "replay deliveries");
      await ctx.deliveries.replay(id);
      return ctx.db.delivery.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  sendTestEvent: t.prismaField({
    type: "TriggerEvent",
    description: "Sends the trigger's sample payload through the real pipeline (account \"test\"), even if the trigger is not in the list.",
    args: { deploymentId: t.arg.id(), trigger: t.arg({ type: TriggerRefInput }) },
    authScopes: (_root, args) => ({ deploymentAdmin: String(args.deploymentId) }),
    resolve: async (query, _root, args, ctx) => {
      const eventId = await ctx.forwarding.sendTestEvent(String(args.deploymentId), args.trigger);
      return ctx.db.triggerEvent.findUniqueOrThrow({ ...query, where: { id: eventId } });
    },
  }),
}));
