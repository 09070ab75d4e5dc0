import { addMember, createDeployment, createOrganization, removeMember } from "../../organizations/organizations.ts";
import { forbidden } from "../../errors.ts";
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
    // An API key sees its own deployment only, not the organization's people or other deployments.
    members: t.relation("memberships", {
      query: { orderBy: { createdAt: "asc" } },
      authScopes: (organization) => ({ organizationMember: organization.id }),
    }),
    deployments: t.relation("deployments", {
      query: { orderBy: { createdAt: "asc" } },
      authScopes: (organization) => ({ organizationMember: organization.id }),
    }),
  }),
});

builder.queryFields((t) => ({
  organizations: t.prismaField({
    type: ["Organization"],
    description: "The organizations the logged-in user belongs to (empty for API keys, which see one deployment).",
    resolve: (query, _root, _args, ctx) => {
      const principal = ctx.principal;
      if (principal?.kind !== "user") return [];
      const where = { memberships: { some: { userId: principal.userId } } };
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
  addMember: t.prismaField({
    type: "Membership",
    description: "Adds a user who has signed up to the organization with a role. Owners and admins only.",
    args: { organizationId: t.arg.id(), email: t.arg.string(), role: t.arg({ type: RoleEnum }) },
    authScopes: (_root, args) => ({ organizationAdmin: String(args.organizationId) }),
    resolve: async (query, _root, args, ctx) => {
      if (args.role === "OWNER" && (await ctx.access.organizationRole(String(args.organizationId))) !== "OWNER") {
        throw forbidden("Only owners can add owners.");
      }
      const membership = await addMember(ctx.services.db, String(args.organizationId), args);
      return ctx.services.db.membership.findUniqueOrThrow({ ...query, where: { id: membership.id } });
    },
  }),
  removeMember: t.boolean({
    args: { organizationId: t.arg.id(), userId: t.arg.id() },
    authScopes: (_root, args) => ({ organizationAdmin: String(args.organizationId) }),
    resolve: async (_root, args, ctx) => {
      await removeMember(ctx.services.db, String(args.organizationId), String(args.userId));
      return true;
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
