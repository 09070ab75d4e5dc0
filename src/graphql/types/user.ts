import { clearedSessionCookie, sessionCookie } from "../../auth/principal.ts";
import { createSession, deleteSession } from "../../auth/sessions.ts";
import { logIn, signUp } from "../../auth/users.ts";
import { builder } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";

builder.prismaObject("User", {
  description: "A console operator.",
  fields: (t) => ({
    id: t.exposeID("id"),
    email: t.exposeString("email"),
    name: t.exposeString("name"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
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
      resolve: (query, payload, _args, ctx) => ctx.services.db.user.findUniqueOrThrow({ ...query, where: { id: payload.userId } }),
    }),
  }),
});

async function startSession(ctx: GraphQLContext, userId: string): Promise<AuthPayloadShape> {
  const { config, db } = ctx.services;
  const { token } = await createSession(db, userId, config.sessionTtlHours);
  ctx.cookies.push(sessionCookie(token, config.sessionTtlHours * 3600, config.publicUrl.startsWith("https:")));
  return { token, userId };
}

builder.queryField("viewer", (t) =>
  t.prismaField({
    type: "User",
    nullable: true,
    description: "The logged-in user; null when not logged in (or when calling with an API key).",
    resolve: (query, _root, _args, ctx) =>
      ctx.principal?.kind === "user" ? ctx.services.db.user.findUnique({ ...query, where: { id: ctx.principal.userId } }) : null,
  }),
);

builder.mutationFields((t) => ({
  signUp: t.field({
    type: AuthPayload,
    args: { email: t.arg.string(), password: t.arg.string(), name: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      await ctx.services.rateLimits.signup.consume(ctx.ip);
      const user = await signUp(ctx.services.db, ctx.services.passwords, args);
      return startSession(ctx, user.id);
    },
  }),
  logIn: t.field({
    type: AuthPayload,
    args: { email: t.arg.string(), password: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      // Per address and account: guessing one account's password from many addresses is still slowed.
      const key = `login:${args.email.trim().toLowerCase()}:${ctx.ip}`;
      await ctx.services.rateLimits.login.consume(key);
      const user = await logIn(ctx.services.db, ctx.services.passwords, args);
      await ctx.services.rateLimits.login.reset(key);
      return startSession(ctx, user.id);
    },
  }),
  logOut: t.boolean({
    description: "Ends the current console session. False when there was none.",
    resolve: async (_root, _args, ctx) => {
      ctx.cookies.push(clearedSessionCookie(ctx.services.config.publicUrl.startsWith("https:")));
      if (ctx.principal?.kind !== "user") return false;
      await deleteSession(ctx.services.db, ctx.principal.sessionId);
      return true;
    },
  }),
}));
