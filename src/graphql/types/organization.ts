import {
  acceptInvitation,
  declineInvitation,
  findInvitation,
  findInvitationByToken,
  inviteMember,
  type IssuedInvitation,
  pendingAt,
  revokeInvitation,
} from "../../organizations/organizations.ts";
import { builder } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";

export const RoleEnum = builder.enumType("Role", { values: ["OWNER", "ADMIN", "MEMBER"] as const });

const Membership = builder.prismaObject("Membership", {
  fields: (t) => ({
    id: t.exposeID("id"),
    role: t.expose("role", { type: RoleEnum }),
    user: t.relation("user"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

export const Invitation = builder.prismaObject("Invitation", {
  description:
    "An email address invited into an organization. The person joins by opening the invitation's link (acceptUrl, shown once to " +
    "the inviter) while logged in with that address, or by signing up through it.",
  fields: (t) => ({
    id: t.exposeID("id"),
    email: t.exposeString("email"),
    role: t.expose("role", { type: RoleEnum }),
    invitedBy: t.relation("invitedBy", { nullable: true, description: "Null when the inviter's account is gone." }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    expiresAt: t.expose("expiresAt", { type: "DateTime" }),
    organizationName: t.string({
      select: { organization: { select: { name: true } } },
      description: "The name of the organization it invites into (for the invitee, who cannot read the organization yet).",
      resolve: (invitation) => invitation.organization.name,
    }),
    acceptUrl: t.string({
      nullable: true,
      description:
        "The link the invited person opens to join: `<PUBLIC_URL>/console/invitations/<token>`. Only in the answer of inviteMember " +
        "(and addMember); null everywhere else: it is stored only as a hash, like an API key. Inviting again issues a new link.",
      resolve: (invitation, _args, ctx) => {
        const token = (invitation as IssuedInvitation).token;
        return token ? invitationUrl(ctx, token) : null;
      },
    }),
  }),
});

const invitationUrl = (ctx: GraphQLContext, token: string) => `${ctx.settings.publicUrl.replace(/\/+$/, "")}/console/invitations/${token}`;

const InviteMemberResult = builder.unionType("InviteMemberResult", {
  description:
    "Always the pending Invitation, whether or not the address has an account (the answer reveals nothing about who has signed up). " +
    "Membership is kept in the union for clients written when existing users were added at once.",
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
      query: (_args, ctx) => ({ where: pendingAt(ctx.clock.now()), orderBy: { createdAt: "asc" } }),
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
      return ctx.db.organization.findMany({ ...query, where, orderBy: { createdAt: "asc" } });
    },
  }),
  organization: t.prismaField({
    type: "Organization",
    nullable: true,
    args: { id: t.arg.id() },
    authScopes: (_root, args) => ({ organizationMember: String(args.id) }),
    resolve: (query, _root, args, ctx) => ctx.db.organization.findUnique({ ...query, where: { id: String(args.id) } }),
  }),
}));

builder.queryFields((t) => ({
  invitation: t.prismaField({
    type: "Invitation",
    nullable: true,
    description:
      "The pending invitation behind an invitation link's token: what it invites into, as whom, for which address. Null when the " +
      "link is not valid (expired, revoked, replaced, used). Public: the token is the secret.",
    args: { token: t.arg.string() },
    resolve: async (query, _root, args, ctx) => {
      const invitation = await findInvitationByToken(ctx.db, args.token, ctx.clock.now());
      return invitation ? ctx.db.invitation.findUnique({ ...query, where: { id: invitation.id } }) : null;
    },
  }),
}));

builder.mutationFields((t) => ({
  createOrganization: t.prismaField({
    type: "Organization",
    description: "A new organization owned by the caller. With ORGANIZATION_CREATION=owners, only owners of an organization may create one.",
    args: { name: t.arg.string() },
    authScopes: { user: true },
    resolve: async (query, _root, args, ctx) => {
      if (ctx.principal?.kind !== "user") throw new Error("unreachable: authScopes requires a user");
      const organization = await ctx.organizations.create(ctx.principal.userId, args.name);
      return ctx.db.organization.findUniqueOrThrow({ ...query, where: { id: organization.id } });
    },
  }),
  addMember: t.prismaField({
    type: "Invitation",
    deprecationReason: "Use inviteMember: people join by accepting an invitation.",
    description:
      "The same as inviteMember: a pending invitation, whether or not the address has an account (nobody is added without " +
      "accepting). Owners and admins; only owners invite owners.",
    args: { organizationId: t.arg.id(), email: t.arg.string(), role: t.arg({ type: RoleEnum }) },
    authScopes: (_root, args) => ({ organizationAdmin: String(args.organizationId) }),
    resolve: async (query, _root, args, ctx) => {
      const issued = await invite(ctx, String(args.organizationId), args);
      const invitation = await ctx.db.invitation.findUniqueOrThrow({ ...query, where: { id: issued.id } });
      return { ...invitation, token: issued.token };
    },
  }),
  removeMember: t.boolean({
    description: "Owners and admins remove members and admins; only owners remove owners, and never the last one.",
    args: { organizationId: t.arg.id(), userId: t.arg.id() },
    authScopes: (_root, args) => ({ organizationAdmin: String(args.organizationId) }),
    resolve: async (_root, args, ctx) => {
      const organizationId = String(args.organizationId);
      await ctx.organizations.removeMember(organizationId, String(args.userId), await ctx.access.organizationRole(organizationId));
      return true;
    },
  }),
  inviteMember: t.field({
    type: InviteMemberResult,
    description:
      "Invites the person with this email address: always a pending Invitation whose acceptUrl (shown once) they open to join, " +
      "whether or not they have an account. Inviting again renews it with a new link. Owners and admins; only owners invite " +
      "owners or change an owner's invitation. With sign-up closed, only an owner's invitation lets someone without an account sign up.",
    args: { organizationId: t.arg.id(), email: t.arg.string(), role: t.arg({ type: RoleEnum }) },
    authScopes: (_root, args) => ({ organizationAdmin: String(args.organizationId) }),
    resolve: (_root, args, ctx) => invite(ctx, String(args.organizationId), args),
  }),
  revokeInvitation: t.boolean({
    description: "Withdraws a pending invitation: its link no longer works. Owners and admins; only owners revoke an owner's invitation.",
    args: { id: t.arg.id() },
    authScopes: { loggedIn: true },
    resolve: async (_root, args, ctx) => {
      const invitation = await findInvitation(ctx.db, String(args.id));
      // Someone outside the organization learns nothing, not even that the id exists.
      const checked = await ctx.access.organization(invitation, "ADMIN", { what: "Invitation", action: "revoke invitations" });
      await revokeInvitation(ctx.db, checked, await ctx.access.organizationRole(checked.organizationId));
      return true;
    },
  }),
  acceptInvitation: t.prismaField({
    type: "Organization",
    description:
      "Joins the organization of the invitation link's token, with its role. The logged-in user's email must be the invited " +
      "address (FORBIDDEN otherwise); an invalid, expired, revoked or used link is NOT_FOUND. Returns the organization.",
    args: { token: t.arg.string() },
    authScopes: { user: true },
    resolve: async (query, _root, args, ctx) => {
      const user = await viewerOf(ctx);
      const membership = await acceptInvitation(ctx.db, user, args.token, ctx.clock.now());
      return ctx.db.organization.findUniqueOrThrow({ ...query, where: { id: membership.organizationId } });
    },
  }),
  declineInvitation: t.boolean({
    description: "Turns down a pending invitation sent to the logged-in user's address (see viewer.invitations). Anyone else's is NOT_FOUND.",
    args: { id: t.arg.id() },
    authScopes: { user: true },
    resolve: async (_root, args, ctx) => {
      await declineInvitation(ctx.db, await viewerOf(ctx), String(args.id));
      return true;
    },
  }),
  createDeployment: t.prismaField({
    type: "Deployment",
    args: { organizationId: t.arg.id(), name: t.arg.string() },
    authScopes: (_root, args) => ({ organizationAdmin: String(args.organizationId) }),
    resolve: async (query, _root, args, ctx) => {
      const deployment = await ctx.organizations.createDeployment(String(args.organizationId), args.name);
      return ctx.db.deployment.findUniqueOrThrow({ ...query, where: { id: deployment.id } });
    },
  }),
}));

async function invite(ctx: GraphQLContext, organizationId: string, args: { email: string; role: string }): Promise<IssuedInvitation> {
  if (ctx.principal?.kind !== "user") throw new Error("unreachable: organizationAdmin requires a user");
  return inviteMember(ctx.db, organizationId, ctx.principal.userId, await ctx.access.organizationRole(organizationId), args, ctx.clock.now());
}

async function viewerOf(ctx: GraphQLContext) {
  if (ctx.principal?.kind !== "user") throw new Error("unreachable: authScopes requires a user");
  return ctx.db.user.findUniqueOrThrow({ where: { id: ctx.principal.userId }, select: { id: true, email: true } });
}
