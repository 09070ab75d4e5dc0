import {
  addMember,
  createDeployment,
  createOrganization,
  findInvitation,
  inviteMember,
  removeMember,
  revokeInvitation,
} from "../../organizations/organizations.ts";
import { forbidden, notFound } from "../../errors.ts";
import { builder } from "../builder.ts";

export const RoleEnum = builder.enumType("Role", { values: ["OWNER", "ADMIN", "MEMBER"] as const });

const Membership = builder.prismaObject("Membership", {
  fields: (t) => ({
    id: t.exposeID("id"),
    role: t.expose("role", { type: RoleEnum }),
    user: t.relation("user"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

const Invitation = builder.prismaObject("Invitation", {
  description: "An email address invited into an organization, waiting for it to sign up.",
  fields: (t) => ({
    id: t.exposeID("id"),
    email: t.exposeString("email"),
    role: t.expose("role", { type: RoleEnum }),
    invitedBy: t.relation("invitedBy", { nullable: true, description: "Null when the inviter's account is gone." }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    expiresAt: t.expose("expiresAt", { type: "DateTime" }),
  }),
});

const InviteMemberResult = builder.unionType("InviteMemberResult", {
  description: "A Membership when the address already has an account (added at once), else the pending Invitation.",
  types: [Membership, Invitation],
  resolveType: (value) => ("userId" in value ? "Membership" : "Invitation"),
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
    invitations: t.relation("invitations", {
      description: "Pending (unexpired) invitations, oldest first. Owners and admins only.",
      query: () => ({ where: { expiresAt: { gt: new Date() } }, orderBy: { createdAt: "asc" } }),
      authScopes: (organization) => ({ organizationAdmin: organization.id }),
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
    description: "Owners and admins remove members and admins; only owners remove owners, and never the last one.",
    args: { organizationId: t.arg.id(), userId: t.arg.id() },
    authScopes: (_root, args) => ({ organizationAdmin: String(args.organizationId) }),
    resolve: async (_root, args, ctx) => {
      const organizationId = String(args.organizationId);
      await removeMember(ctx.services.db, organizationId, String(args.userId), await ctx.access.organizationRole(organizationId));
      return true;
    },
  }),
  inviteMember: t.field({
    type: InviteMemberResult,
    description:
      "Adds the person with this email address: at once if they have an account (a Membership), else as a pending " +
      "Invitation that their sign-up with this address accepts (also when sign-up is closed). Owners and admins; only owners invite owners.",
    args: { organizationId: t.arg.id(), email: t.arg.string(), role: t.arg({ type: RoleEnum }) },
    authScopes: (_root, args) => ({ organizationAdmin: String(args.organizationId) }),
    resolve: async (_root, args, ctx) => {
      if (ctx.principal?.kind !== "user") throw new Error("unreachable: organizationAdmin requires a user");
      const organizationId = String(args.organizationId);
      if (args.role === "OWNER" && (await ctx.access.organizationRole(organizationId)) !== "OWNER") {
        throw forbidden("Only owners can invite owners.");
      }
      const result = await inviteMember(ctx.services.db, organizationId, ctx.principal.userId, args);
      return "membership" in result ? result.membership : result.invitation;
    },
  }),
  revokeInvitation: t.boolean({
    description: "Withdraws a pending invitation: signing up with that address no longer joins. Owners and admins.",
    args: { id: t.arg.id() },
    authScopes: { loggedIn: true },
    resolve: async (_root, args, ctx) => {
      const invitation = await findInvitation(ctx.services.db, String(args.id));
      // Someone outside the organization learns nothing, not even that the id exists.
      if (!invitation || !(await ctx.access.canReadOrganization(invitation.organizationId))) throw notFound("Invitation");
      if (!(await ctx.access.canManageOrganization(invitation.organizationId))) throw forbidden("Only owners and admins can revoke invitations.");
      await revokeInvitation(ctx.services.db, invitation.id);
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
