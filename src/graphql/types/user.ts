import { clearedSessionCookie, sessionCookie } from "../../auth/principal.ts";
import { forbidden } from "../../errors.ts";
import { pendingAt } from "../../organizations/organizations.ts";
import { builder } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";

builder.prismaObject("User", {
  description: "A console operator.",
  fields: (t) => ({
    id: t.exposeID("id"),
    email: t.exposeString("email"),
    name: t.exposeString("name"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    invitations: t.prismaField({
      type: ["Invitation"],
      description:
        "Pending invitations sent to this user's email address, oldest first: what to accept (with the link the inviter sent) " +
        "or decline. Only on `viewer`; anyone else's is FORBIDDEN.",
      resolve: (query, user, _args, ctx) => {
        if (ctx.principal?.kind !== "user" || ctx.principal.userId !== user.id) throw forbidden("Only the invited person sees their invitations.");
        return ctx.db.invitation.findMany({ ...query, where: { email: user.email, ...pendingAt(ctx.clock.now()) }, orderBy: { createdAt: "asc" } });
      },
    }),
  }),
});

interface AuthPayloadShape {
  token: string;
  userId: string;
}

const AuthPayload = builder.objectRef<AuthPayloadShape>("AuthPayload").implement({
  description: "A new console session. `token` works as `Authorization: Bearer <token>`; the `sy_session` cookie is set too.",
  fields: (t) => ({
    token: t.exposeString("token"),
    user: t.prismaField({
      type: "User",
      resolve: (query, payload, _args, ctx) => ctx.db.user.findUniqueOrThrow({ ...query, where: { id: payload.userId } }),
    }),
  }),
});

async function startSession(ctx: GraphQLContext, userId: string): Promise<AuthPayloadShape> {
  const { sessionTtlHours, publicUrl } = ctx.settings;
  const { token } = await ctx.sessions.create(userId, sessionTtlHours);
  ctx.cookies.push(sessionCookie(token, sessionTtlHours * 3600, publicUrl.startsWith("https:")));
  return { token, userId };
}

const SignUpPolicy = builder.enumType("SignUpPolicy", {
  description: "Who may create an account on this Switchyard (the SIGNUP setting).",
  values: {
    OPEN: { description: "Anyone." },
    CLOSED: { description: "The install's first account, then only people signing up through an invitation link from an owner (Members → Invite)." },
  } as const,
});

builder.queryField("signUpPolicy", (t) =>
  t.field({
    type: SignUpPolicy,
    description: "Whether sign-up is open or by invitation, so a sign-up form can say so before anyone types a password. Public.",
    resolve: (_root, _args, ctx) => (ctx.settings.signup === "closed" ? "CLOSED" : "OPEN"),
  }),
);

builder.queryField("viewer", (t) =>
  t.prismaField({
    type: "User",
    nullable: true,
    description: "The logged-in user; null when not logged in (or when calling with an API key).",
    resolve: (query, _root, _args, ctx) =>
      ctx.principal?.kind === "user" ? ctx.db.user.findUnique({ ...query, where: { id: ctx.principal.userId } }) : null,
  }),
);

builder.mutationFields((t) => ({
  signUp: t.field({
    type: AuthPayload,
    description:
      "A new account and its session. `invitationToken` (the secret of an invitation link sent to this address) joins that " +
      "organization at once; with sign-up closed it is the only way in after the first account, and only an owner's invitation works.",
    args: { email: t.arg.string(), password: t.arg.string(), name: t.arg.string(), invitationToken: t.arg.string({ required: false }) },
    resolve: async (_root, args, ctx) => {
      const user = await ctx.users.signUp(args, ctx.ip);
      return startSession(ctx, user.id);
    },
  }),
  logIn: t.field({
    type: AuthPayload,
    args: { email: t.arg.string(), password: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      const user = await ctx.users.logIn(args, ctx.ip);
      return startSession(ctx, user.id);
    },
  }),
  logOut: t.boolean({
    description: "Ends the current console session. False when there was none.",
    resolve: async (_root, _args, ctx) => {
      ctx.cookies.push(clearedSessionCookie(ctx.settings.publicUrl.startsWith("https:")));
      if (ctx.principal?.kind !== "user") return false;
      await ctx.sessions.revoke(ctx.principal.userId, { only: ctx.principal.sessionId });
      return true;
    },
  }),
  changePassword: t.boolean({
    description:
      "Replaces the logged-in user's password. Every other session of the user ends; the one that made the change stays. " +
      "A wrong current password is BAD_USER_INPUT on `currentPassword` and counts against the log-in limits.",
    args: { currentPassword: t.arg.string(), newPassword: t.arg.string() },
    authScopes: { user: true },
    resolve: async (_root, args, ctx) => {
      if (ctx.principal?.kind !== "user") throw new Error("unreachable: authScopes requires a user");
      await ctx.users.changePassword(ctx.principal.userId, args, ctx.ip, ctx.principal.sessionId);
      return true;
    },
  }),
  logOutEverywhere: t.boolean({
    description: "Ends every session of the logged-in user, this one included (other browsers, the CLI's tokens).",
    authScopes: { user: true },
    resolve: async (_root, _args, ctx) => {
      if (ctx.principal?.kind !== "user") throw new Error("unreachable: authScopes requires a user");
      ctx.cookies.push(clearedSessionCookie(ctx.settings.publicUrl.startsWith("https:")));
      await ctx.sessions.revoke(ctx.principal.userId);
      return true;
    },
  }),
}));
