import type { GraphQLContext } from "./context.ts";

/**
 * What an admin-only mutation on one row reads before the access guard: the row's deployment (and
 * what the mutation needs of it), by id. Keyed by the name refusals use (`<what> was not found.`).
 */
const lookUps = {
  Delivery: (ctx: GraphQLContext, id: string) => ctx.db.delivery.findUnique({ where: { id }, select: { id: true, deploymentId: true } }),
  "Connected account": (ctx: GraphQLContext, id: string) =>
    ctx.db.connectedAccount.findUnique({ where: { id }, select: { id: true, deploymentId: true, connector: true, account: true, params: true } }),
  "Provider subscription": (ctx: GraphQLContext, id: string) => ctx.db.providerSubscription.findUnique({ where: { id }, select: { id: true, deploymentId: true } }),
  "Data item": async (ctx: GraphQLContext, id: string) => {
    // Ids are PostgreSQL `integer`s: anything outside 1..2^31-1 names no item (and must not reach the query).
    const itemId = /^\d{1,10}$/.test(id) ? Number(id) : Number.NaN;
    if (!(itemId >= 1 && itemId <= 2_147_483_647)) return null;
    return ctx.db.dataItem.findUnique({ where: { id: itemId }, select: { id: true, deploymentId: true } });
  },
  "Verification token": async (ctx: GraphQLContext, id: string) => {
    const deploymentId = await ctx.verificationTokens.deploymentOf(id);
    return deploymentId ? { id, deploymentId } : null;
  },
};

type Looked<What extends keyof typeof lookUps> = NonNullable<Awaited<ReturnType<(typeof lookUps)[What]>>>;

/**
 * Look up, then guard: the row named by `id`, refused unless the caller is an owner or admin of its
 * deployment (or its API key). Someone else's row is indistinguishable from none: NOT_FOUND
 * `<what> was not found.`; a member below admin gets FORBIDDEN `Only owners and admins can <action>.`
 */
export async function lookUpThenGuard<What extends keyof typeof lookUps>(ctx: GraphQLContext, what: What, id: string, action: string): Promise<Looked<What>> {
  const found = (await lookUps[what](ctx, id)) as Looked<What> | null;
  return ctx.access.deployment(found, "ADMIN", { what, action });
}
