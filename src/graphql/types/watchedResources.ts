import { watchingFor } from "../../connections/connection.ts";
import { type ParamDeclaration, resourceParamsOf } from "../../connectors/params.ts";
import { AppError } from "../../errors.ts";
import { builder } from "../builder.ts";
import { Connector } from "./connectors.ts";

/**
 * The resources a connection watches (§13): each with its own provider subscription. Read by the
 * deployment's members; watched and unwatched by owners, admins and the deployment's API key (as
 * disconnectAccount), with the REST routes' checks and codes (connections/resources/resources.ts).
 */

export const Watching = builder.enumType("Watching", {
  description:
    "RESOURCES: the connection watches at least one resource. NONE: its connector's subscriptions need a resource and it names none (nothing is subscribed at the provider; " +
    "a webhook registered by hand still works). ACCOUNT: account-wide subscriptions, app-level webhooks, polling, or optional resources none of which is named.",
  values: ["RESOURCES", "NONE", "ACCOUNT"] as const,
});

const ResourceParam = builder.objectRef<ParamDeclaration>("ResourceParam").implement({
  description: "A parameter every watched resource of the connector names (a GitLab project's `project_id`).",
  fields: (t) => ({
    name: t.exposeString("name"),
    description: t.exposeString("description"),
    pattern: t.exposeString("pattern", { description: "The anchored regular expression a value must match." }),
    example: t.exposeString("example"),
    optional: t.exposeBoolean("optional", { description: "Whether a connection naming no resource still watches the account (Trello's member boards)." }),
  }),
});

builder.objectFields(Connector, (t) => ({
  resourceParams: t.field({
    type: [ResourceParam],
    description: "What one watched resource names; empty when the connector's subscriptions watch no resource (`watchResource` then refuses).",
    resolve: (connector) => resourceParamsOf(connector.declaration.params),
  }),
}));

/** A resource's subscription when it has several live ones: the one most in need of attention. */
const ATTENTION = { FAILED: 0, PENDING: 1, ACTIVE: 2, DELETED: 3 } as const;

builder.prismaObject("WatchedResource", {
  description: "A resource a connection watches (a GitLab project, a Trello board, a Google calendar), with its provider subscription.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "`res_…`" }),
    params: t.expose("params", { type: "JSON", description: "The connector's resource parameters, string values (`{\"project_id\":\"278964\"}`)." }),
    subscription: t.prismaField({
      type: "ProviderSubscription",
      nullable: true,
      description: "Its live provider subscription (the one most in need of attention where a resource has several); null before it is planned, or when no listed trigger needs it.",
      resolve: async (query, resource, _args, ctx) => {
        const live = await ctx.db.providerSubscription.findMany({ ...query, where: { watchedResourceId: resource.id, status: { not: "DELETED" } }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
        live.sort((a, b) => ATTENTION[a.status] - ATTENTION[b.status]);
        return live[0] ?? null;
      },
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.prismaObjectFields("ConnectedAccount", (t) => ({
  resources: t.relation("watchedResources", {
    description: "The resources it watches, oldest first (empty for connectors without resource parameters).",
    query: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
  }),
  watching: t.field({
    type: Watching,
    description: "What Switchyard subscribes to for it at the provider.",
    resolve: async (account, _args, ctx) => watchingFor(account.connector, await ctx.db.watchedResource.count({ where: { connectedAccountId: account.id } })),
  }),
}));

builder.mutationFields((t) => ({
  watchResource: t.prismaField({
    type: "WatchedResource",
    description:
      "Watch a resource with the connection, as `POST /api/v1/connections/{connector}/{account}/resources`: the same params again answer the existing one. " +
      "Params are checked by the connector's declared patterns (BAD_USER_INPUT naming the parameter); past MAX_RESOURCES_PER_CONNECTION: LIMIT_EXCEEDED; a deleted connection: CONFLICT.",
    args: { connectionId: t.arg.id(), params: t.arg({ type: "JSON" }) },
    authScopes: { loggedIn: true },
    resolve: async (query, _root, args, ctx) => {
      const found = await ctx.db.connectedAccount.findUnique({ where: { id: String(args.connectionId) }, select: { id: true, deploymentId: true } });
      const account = await ctx.access.deployment(found, "ADMIN", { what: "Connected account", action: "watch resources" });
      const { resource } = await ctx.resources.add(account.deploymentId, { id: account.id }, args.params);
      return ctx.db.watchedResource.findUniqueOrThrow({ ...query, where: { id: resource.id } });
    },
  }),
  unwatchResource: t.boolean({
    description: "Stop watching a resource, as `DELETE …/resources/{id}`: its provider subscription is deleted at the provider within seconds. Again: NOT_FOUND.",
    args: { id: t.arg.id() },
    authScopes: { loggedIn: true },
    resolve: async (_root, args, ctx) => {
      const id = String(args.id);
      const owner = await ctx.resources.ownerOf(id);
      if (!owner) throw new AppError("RESOURCE_NOT_FOUND", `There is no watched resource ${id}.`);
      const account = await ctx.access.deployment({ id: owner.connectedAccountId, deploymentId: owner.deploymentId }, "ADMIN", { what: "Watched resource", action: "unwatch resources" });
      await ctx.resources.remove(account.deploymentId, { id: account.id }, id);
      return true;
    },
  }),
}));
