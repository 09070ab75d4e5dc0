import { findDeployment } from "../../deployments/findDeployment.ts";
import type { Deployment } from "../../generated/prisma/client.ts";
import { builder } from "../builder.ts";

/**
 * The Deployment (Environment) and its keys. Other capabilities add their fields to it from their
 * own files (dataItem.ts, forwarding.ts, connectors.ts, …) with builder.prismaObjectField.
 */
const DeploymentObject = builder.prismaObject("Deployment", {
  description: "A deployment (environment) of an organization; owns keys, settings, accounts, events and data.",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    organization: t.relation("organization"),
    signingSecret: t.string({
      nullable: true,
      description: "The Standard Webhooks secret (`whsec_…`) forwarded requests are signed with. Owners and admins only.",
      authScopes: (deployment) => ({ deploymentAdmin: deployment.id }),
      resolve: (deployment, _args, ctx) => ctx.signingSecrets.current(deployment.id),
    }),
    apiKey: t.prismaField({
      type: "ApiKey",
      nullable: true,
      description: "The current API key (its prefix and dates; the secret is shown only when generated).",
      resolve: (_query, deployment, _args, ctx) => ctx.apiKeys.current(deployment.id),
    }),
  }),
});

builder.prismaObject("ApiKey", {
  fields: (t) => ({
    id: t.exposeID("id"),
    prefix: t.exposeString("prefix"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    lastUsedAt: t.expose("lastUsedAt", { type: "DateTime", nullable: true }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", nullable: true }),
  }),
});

const GeneratedApiKey = builder.objectRef<{ apiKey: string; key: { id: string } }>("GeneratedApiKey").implement({
  fields: (t) => ({
    apiKey: t.exposeString("apiKey", { description: "The whole key. Shown this once: store it now." }),
    key: t.prismaField({
      type: "ApiKey",
      resolve: (query, generated, _args, ctx) => ctx.db.apiKey.findUniqueOrThrow({ ...query, where: { id: generated.key.id } }),
    }),
  }),
});

builder.queryField("deployment", (t) =>
  // t.field, not t.prismaField: the row is not read through Prisma, so mapping the selection to a
  // Prisma query on every request would be wasted work; relations selected below it come from the
  // Prisma plugin's fallback, as for any row missing them.
  t.field({
    type: DeploymentObject,
    nullable: true,
    args: { id: t.arg.id() },
    authScopes: (_root, args) => ({ deploymentMember: String(args.id) }),
    // Plain SQL for the row (the hot path of the data listing), read with the caller's role when the
    // access check already did, and remembered (auth/access.ts).
    // The remembered row has no item counter: no Deployment field serves it (dataItems reads its own).
    resolve: async (_root, args, ctx) => {
      const id = String(args.id);
      const row = (await ctx.access.checkedDeployment(id)) ?? ctx.accessCache.deployment(id);
      if (row) return row as Deployment;
      const found = await findDeployment(ctx.sql, id);
      return found && (ctx.accessCache.rememberDeployment(found) as Deployment);
    },
  }),
);

builder.queryField("deployments", (t) =>
  t.prismaField({
    type: ["Deployment"],
    description:
      "The deployments these credentials can see: an API key's own one; a user's in every organization they belong to " +
      "(oldest organization first). What `switchyard listen` picks from when no deployment is given.",
    resolve: (query, _root, _args, ctx) => {
      const principal = ctx.principal;
      if (principal?.kind === "apiKey") return ctx.db.deployment.findMany({ ...query, where: { id: principal.deploymentId } });
      if (principal?.kind !== "user") return [];
      return ctx.db.deployment.findMany({
        ...query,
        where: { organization: { memberships: { some: { userId: principal.userId } } } },
        orderBy: [{ organization: { createdAt: "asc" } }, { createdAt: "asc" }],
      });
    },
  }),
);

builder.mutationFields((t) => ({
  generateApiKey: t.field({
    type: GeneratedApiKey,
    description: "A new API key; the previous one stops working now, or after gracePeriodSeconds (at most 7 days).",
    args: { deploymentId: t.arg.id(), gracePeriodSeconds: t.arg.int({ required: false, defaultValue: 0 }) },
    // A key cannot mint its successor: only people in the console can.
    authScopes: (_root, args) => ({ $all: { user: true, deploymentAdmin: String(args.deploymentId) } }),
    resolve: async (_root, args, ctx) => {
      const deployment = await ctx.db.deployment.findUniqueOrThrow({ where: { id: String(args.deploymentId) } });
      return ctx.apiKeys.generate(deployment.id, deployment.name, args.gracePeriodSeconds ?? 0);
    },
  }),
  rotateSigningSecret: t.prismaField({
    type: "Deployment",
    description: "A new signing secret; the old one keeps signing alongside for 24 hours.",
    args: { deploymentId: t.arg.id() },
    authScopes: (_root, args) => ({ deploymentAdmin: String(args.deploymentId) }),
    resolve: async (query, _root, args, ctx) => {
      await ctx.signingSecrets.rotate(String(args.deploymentId));
      return ctx.db.deployment.findUniqueOrThrow({ ...query, where: { id: String(args.deploymentId) } });
    },
  }),
}));
