import type { ConnectSettingsView } from "../../connections/connectSettings.ts";
import { builder } from "../builder.ts";

/** Connect settings: where the hosted connect flow may send end users back to (auth-url `redirectUrl`). */
const ConnectSettings = builder.objectRef<ConnectSettingsView>("ConnectSettings").implement({
  description: "How the hosted connect flow ends (the origins an auth-url's `redirectUrl` may point at), and how often a connection may be proxied.",
  fields: (t) => ({
    allowedRedirectOrigins: t.exposeStringList("allowedRedirectOrigins", {
      description: "Normalised origins (`https://app.example.com`, `http://localhost:3000`); a redirectUrl's origin must equal one of them.",
    }),
    proxyRateLimitPerMinute: t.exposeInt("proxyRateLimitPerMinute", {
      nullable: true,
      description: "Requests one connection may send through the proxy per minute (429 `rate_limited` past it, the provider not called); null: no limit.",
    }),
  }),
});

const ConnectSettingsInput = builder.inputType("ConnectSettingsInput", {
  fields: (t) => ({
    allowedRedirectOrigins: t.stringList({
      description: "scheme://host[:port] each, at most 20: https, or http for localhost only. Replaces the stored list.",
    }),
    proxyRateLimitPerMinute: t.int({
      required: false,
      description: "Requests one connection may send through the proxy per minute, 1–1,000,000; null removes the limit; absent keeps it.",
    }),
  }),
});

builder.prismaObjectFields("Deployment", (t) => ({
  connectSettings: t.field({
    type: ConnectSettings,
    resolve: (deployment, _args, ctx) => ctx.connectSettings.read(deployment.id),
  }),
}));

builder.mutationFields((t) => ({
  saveConnectSettings: t.field({
    type: ConnectSettings,
    description: "Replaces the deployment's Connect settings. Owners and admins.",
    args: { deploymentId: t.arg.id(), input: t.arg({ type: ConnectSettingsInput }) },
    authScopes: (_root, args) => ({ deploymentAdmin: String(args.deploymentId) }),
    resolve: (_root, args, ctx) => ctx.connectSettings.save(String(args.deploymentId), args.input),
  }),
}));
