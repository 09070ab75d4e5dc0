import { badInput } from "../../errors.ts";
import { builder } from "../builder.ts";
import { lookUpThenGuard } from "../lookUpThenGuard.ts";

/**
 * Per-account provider subscriptions (src/subscriptions/): what each connection holds at its
 * provider, readable by the deployment's members, and Retry now for owners, admins and the
 * deployment's API key. The sealed secret and the change cursor are never exposed.
 */

export const ProviderSubscriptionStatus = builder.enumType("ProviderSubscriptionStatus", {
  description: "PENDING: not made yet (or being re-made for other triggers); ACTIVE: live; FAILED: failing for 24 h, still retried hourly; DELETED: removed at the provider.",
  values: ["PENDING", "ACTIVE", "FAILED", "DELETED"] as const,
});

builder.prismaObject("ProviderSubscription", {
  description: "A subscription Switchyard keeps at the provider for one connection (a Calendar channel, a Graph subscription, a Gmail watch).",
  fields: (t) => ({
    id: t.exposeID("id"),
    resource: t.exposeString("resource", { description: "What is watched (empty: the whole account)." }),
    events: t.exposeStringList("events", { description: "The provider events it covers, from the listed triggers." }),
    status: t.expose("status", { type: ProviderSubscriptionStatus }),
    providerId: t.exposeString("providerId", { nullable: true, description: "The provider's id for it." }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", nullable: true }),
    lastRenewedAt: t.expose("lastRenewedAt", { type: "DateTime", nullable: true }),
    lastError: t.exposeString("lastError", { nullable: true }),
    nextAttemptAt: t.expose("nextAttemptAt", { type: "DateTime", nullable: true, description: "When it is next created, renewed, retried or deleted." }),
  }),
});

builder.prismaObjectFields("ConnectedAccount", (t) => ({
  subscriptions: t.relation("providerSubscriptions", {
    description: "The subscriptions held at the provider for this connection, newest first.",
    query: { orderBy: [{ createdAt: "desc" }, { id: "asc" }] },
  }),
}));

builder.mutationFields((t) => ({
  retryProviderSubscription: t.prismaField({
    type: "ProviderSubscription",
    description: "Create, renew or delete it at the provider now instead of at its next attempt. Owners, admins and the deployment's API key.",
    args: { id: t.arg.id() },
    authScopes: { loggedIn: true },
    resolve: async (query, _root, args, ctx) => {
      const subscription = await lookUpThenGuard(ctx, "Provider subscription", String(args.id), "retry provider subscriptions");
      if (!(await ctx.subscriptions.retryNow(subscription.id))) {
        throw badInput("This subscription was deleted; it is made again when its trigger is listed for an active connection.", [{ field: "id", message: "subscription is DELETED" }]);
      }
      return ctx.db.providerSubscription.findUniqueOrThrow({ ...query, where: { id: subscription.id } });
    },
  }),
}));
