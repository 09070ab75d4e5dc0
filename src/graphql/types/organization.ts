import { createDeployment, createOrganization } from "../../organizations/organizations.ts";
import { builder } from "../builder.ts";

export const RoleEnum = builder.enumType("Role", { values: ["OWNER", "ADMIN", "MEMBER"] as const });

builder.prismaObject("Membership", {
  fields: (t) => ({
    id: t.exposeID("id"),
    role: t.expose("role", { type: RoleEnum }),
    user: t.relation("user"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.prismaObject("Organization", {
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    viewerRole: t.field({
      type: RoleEnum,
      nullable: true,
      description: "The logged-in user's role here.",
      resolve: (organization, _args, ctx) => ctx.access.organizationRole(organization.id),
    }),
    members: t.relation("memberships", { query: { orderBy: { createdAt: "asc" } } }),
    deployments: t.relation("deployments", { query: { orderBy: { createdAt: "asc" } } }),
  }),
});

builder.queryFields((t) => ({
  organizations: t.prismaField({
    type: ["Organization"],
    description: "The organizations the logged-in user belongs to; with an API key, the key's organization.",
    resolve: (query, _root, _args, ctx) => {
      const principal = ctx.principal;
      if (!principal) return [];
      const where =
        principal.kind === "user"
          ? { memberships: { some: { userId: principal.userId } } }
          : { deployments: { some: { id: principal.deploymentId } } };
      return ctx.services.db.organization.findMany({ ...query, where, orderBy: { createdAt: "asc" } });
    },
  }),
  organization: t.prismaField({
    type: "Organization",
    nullable: true,
    args: { id: t.arg.id() },
    authScopes: (_root, args) => ({ organizationMember: String(args.id) }),
    resolve: (query, _root, args, ctx) => ctx.services.db.organization.findUnique({ ...query, where: { id: String(args.id) } }),
  }),
}));

builder.mutationFields((t) => ({
  createOrganization: t.prismaField({
    type: "Organization",
    args: { name: t.arg.string() },
    authScopes: { user: true },
    resolve: async (query, _root, args, ctx) => {
      if (ctx.principal?.kind !== "user") throw new Error("unreachable: authScopes requires a user");
      const organization = await createOrganization(ctx.services.db, ctx.services.box, ctx.principal.userId, args.name);
      return ctx.services.db.organization.findUniqueOrThrow({ ...query, where: { id: organization.id } });
    },
  }),
  createDeployment: t.prismaField({
    type: "Deployment",
    args: { organizationId: t.arg.id(), name: t.arg.string() },
    authScopes: (_root, args) => ({ organizationAdmin: String(args.organizationId) }),
    resolve: async (query, _root, args, ctx) => {
      const deployment = await createDeployment(ctx.services.db, ctx.services.box, String(args.organizationId), args.name);
      return ctx.services.db.deployment.findUniqueOrThrow({ ...query, where: { id: deployment.id } });
    },
  }),
}));
