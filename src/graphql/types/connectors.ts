import { readParams, storedParams } from "../../connectors/params.ts";
import { checkAccount } from "../../rest/getAuthUrl.ts";
import { AUTH_MODES, CATEGORIES } from "../../connectors/declaration.ts";
import { allConnectors, findConnector, knownConnector } from "../../connectors/registry.ts";
import type { ConnectorDefinition, TriggerDefinition } from "../../connectors/types.ts";
import { authModeOf, hasClient, requireConnectable } from "../../connections/authModes/index.ts";
import type { CredentialsView } from "../../credentials/operatorCredentials.ts";
import { serviceCredentials } from "../../credentials/serviceDefaults.ts";
import type { VerificationTokenView } from "../../credentials/verificationTokens.ts";
import { metadataOf, paramsOf } from "../../connections/connection.ts";
import { CONNECTIONS_MAX_PAGE } from "../../connections/connections.ts";
import { parseConnectionFilter } from "../../connections/filter.ts";
import { badInput, unknownConnector } from "../../errors.ts";
import { createConnectSession } from "../../connect/sessions.ts";
import type { GraphQLContext } from "../context.ts";
import { lookUpThenGuard } from "../lookUpThenGuard.ts";
import { builder } from "../builder.ts";

/**
 * The connector catalog, the operator's own OAuth apps per deployment, and the accounts end users
 * connected. Secrets are write-only: the API says whether they are set, never what they are.
 */

const inboundUrl = (publicUrl: string, deploymentId: string, connector: string) => `${publicUrl}/webhooks/${deploymentId}/${connector}`;

const Trigger = builder.objectRef<TriggerDefinition>("Trigger").implement({
  description: "Something that happens at the third party and can be forwarded.",
  fields: (t) => ({
    name: t.exposeString("name"),
    displayName: t.exposeString("displayName"),
    description: t.exposeString("description"),
    providerEvent: t.exposeString("providerEvent", {
      description: "The provider's own name of the event: GitHub `issues.opened` or `push`, Slack `reaction_added`, Stripe `invoice.paid`.",
    }),
    samplePayload: t.field({ type: "JSON", description: "The `data` of a forwarded event of this trigger.", resolve: (trigger) => trigger.samplePayload }),
  }),
});

const AuthMode = builder.enumType("AuthMode", { values: AUTH_MODES });

export const Connector = builder.objectRef<ConnectorDefinition>("Connector").implement({
  description: "A third-party service Switchyard can connect to.",
  fields: (t) => ({
    name: t.exposeString("name"),
    displayName: t.exposeString("displayName"),
    category: t.exposeString("category", { description: `One of: ${CATEGORIES.join(", ")}.` }),
    authMode: t.field({
      type: AuthMode,
      description: "How an end user's account is authorized. OAUTH2: signing in at the provider. API_KEY and BASIC: the end user enters the fields the connector names on the hosted connect page, checked with the provider before they are kept (no OAuth app needed). APP_INSTALLATION: the end user installs the operator's app (a GitHub App) and Switchyard mints installation tokens with the app's private key. NONE: never (Switchyard's own lifecycle events); such a connector has no auth-url.",
      resolve: (c) => c.authMode,
    }),
    description: t.exposeString("description"),
    icon: t.exposeString("icon", { description: "A small inline SVG." }),
    triggers: t.field({ type: [Trigger], resolve: (c) => c.triggers }),
    scopes: t.stringList({ description: "The OAuth scopes asked for at connect time.", resolve: (c) => c.oauth.scopes }),
    serviceCredentialsConfigured: t.boolean({
      description:
        "The service's own OAuth client exists (CONNECTOR_<NAME>_CLIENT_ID and _CLIENT_SECRET are set; APP_INSTALLATION connectors: the app's _APP_ID, _PRIVATE_KEY and _SLUG), so deployments without their own credentials can connect accounts.",
      resolve: (c, _args, ctx) => {
        const defaults = serviceCredentials(ctx.settings.connectorEnv, c);
        const credentials = { ...defaults, source: "service" as const, app: defaults };
        return hasClient(c, credentials);
      },
    }),
    webhookUrlTemplate: t.string({
      nullable: true,
      description: "The inbound URL to register at the provider, with `{deploymentId}` in place of the deployment's id; null when the connector has no inbound events.",
      resolve: (c, _args, ctx) => (c.inbound.delivery === "none" ? null : inboundUrl(ctx.settings.publicUrl, "{deploymentId}", c.name)),
    }),
    docs: t.stringList({ description: "The provider documentation this connector's declaration is based on.", resolve: (c) => c.docs }),
    revokesGrantOnDelete: t.boolean({
      description:
        "Deleting a connection also revokes the end user's grant at the provider, the way its documentation says (best effort). False: Switchyard only forgets the credentials (the provider documents no revocation Switchyard can make), and the end user removes the app at the provider.",
      resolve: (c) => c.oauth.revocation !== undefined,
    }),
    sendsVerificationToken: t.boolean({
      description:
        "The provider POSTs a verification token to the webhook URL when a subscription is created (Notion), to be pasted back at the provider; it appears in Deployment.webhookVerificationTokens.",
      resolve: (c) => c.inbound.sendsVerificationToken,
    }),
  }),
});

builder.queryFields((t) => ({
  connectors: t.field({ type: [Connector], description: "The connector catalog.", resolve: () => [...allConnectors()] }),
  connector: t.field({
    type: Connector,
    nullable: true,
    args: { name: t.arg.string() },
    resolve: (_root, args) => findConnector(args.name) ?? null,
  }),
}));

const ConnectorCredentials = builder.objectRef<CredentialsView>("ConnectorCredentials").implement({
  description: "A deployment's own OAuth app for a connector. The secrets are never returned.",
  fields: (t) => ({
    connector: t.exposeString("connector"),
    clientId: t.exposeString("clientId"),
    clientSecretSet: t.exposeBoolean("clientSecretSet"),
    webhookSecretSet: t.exposeBoolean("webhookSecretSet"),
    appId: t.exposeString("appId", { nullable: true, description: "APP_INSTALLATION connectors: the app's id or client id." }),
    appSlug: t.exposeString("appSlug", { nullable: true, description: "APP_INSTALLATION connectors: the app's slug." }),
    privateKeySet: t.exposeBoolean("privateKeySet", { description: "APP_INSTALLATION connectors: the app's private key is stored (it is never returned)." }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const WebhookVerificationToken = builder.objectRef<VerificationTokenView>("WebhookVerificationToken").implement({
  description:
    "A token a provider POSTed, unsigned, to the deployment's webhook URL when a subscription was created (Notion's `verification_token`), " +
    "to paste back at the provider. Anyone who knows the URL can send one, so every one received is kept (the newest 20 unconfirmed) " +
    "and none verifies anything until an owner or admin confirms it (confirmWebhookVerificationToken).",
  fields: (t) => ({
    id: t.exposeID("id"),
    connector: t.exposeString("connector"),
    token: t.exposeString("token", { description: "The token itself: a secret." }),
    receivedAt: t.expose("receivedAt", { type: "DateTime", description: "When it arrived: compare with when the subscription was created at the provider." }),
    confirmedAt: t.expose("confirmedAt", { type: "DateTime", nullable: true, description: "When an owner or admin confirmed it; null while it is only received." }),
    inForce: t.exposeBoolean("inForce", {
      description:
        "Inbound events are verified with this token: it is confirmed, and no webhook secret is configured for the connector (neither this deployment's nor the service's).",
    }),
  }),
});

const ConnectorCredentialsInput = builder.inputType("ConnectorCredentialsInput", {
  fields: (t) => ({
    clientId: t.string({ required: false, description: "Required, except for APP_INSTALLATION connectors (there: the app's optional OAuth client, for confirming installations with the installing user's authorization)." }),
    clientSecret: t.string({ required: false, description: "Sealed, never returned. Required with clientId." }),
    webhookSecret: t.string({ required: false }),
    appId: t.string({ required: false, description: "APP_INSTALLATION connectors (GitHub App): the app's id or client id (the JWT issuer)." }),
    appSlug: t.string({ required: false, description: "APP_INSTALLATION connectors: the app's slug, as in https://github.com/apps/<slug>." }),
    privateKey: t.string({ required: false, description: "APP_INSTALLATION connectors: the app's private key (PEM). Sealed, never returned." }),
  }),
});

const AccountStatus = builder.enumType("AccountStatus", { values: ["ACTIVE", "REAUTH_REQUIRED", "DISCONNECTED"] as const });

const ConnectedAccount = builder.prismaObject("ConnectedAccount", {
  description: "An end-user account authorized at a third party. Its tokens are never exposed.",
  fields: (t) => ({
    id: t.exposeID("id"),
    connector: t.exposeString("connector"),
    account: t.exposeString("account", { description: "The operator's id for the end user (the auth-url `account`)." }),
    externalId: t.exposeString("externalId", { description: "The provider's id for the user." }),
    status: t.expose("status", { type: AccountStatus }),
    scopes: t.exposeStringList("scopes"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    lastRefreshedAt: t.expose("lastRefreshedAt", { type: "DateTime", nullable: true }),
    tokenExpiresAt: t.expose("tokenExpiresAt", {
      type: "DateTime",
      nullable: true,
      description: "When the access token runs out (it is refreshed before then); null when it does not expire. The token itself is never exposed.",
    }),
    displayName: t.exposeString("displayName", { nullable: true, description: "What the provider calls the account (a login, an e-mail address)." }),
    params: t.field({
      type: "JSON",
      description: "Connection parameters the connector declares (a Zendesk subdomain), name → value.",
      select: { params: true },
      resolve: (account) => paramsOf(account.params),
    }),
    metadata: t.field({
      type: "JSON",
      description: "What the identity read kept about the account (login, name, workspace, …).",
      select: { metadata: true },
      resolve: (account) => metadataOf(account.metadata),
    }),
    lastEventAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the newest event of this connection was recorded.",
      select: { connector: true },
      // Derived from its newest event through an index (connections/lastEventAt.ts), not a column.
      resolve: (account, _args, ctx) => ctx.lastEventAt.load(account),
    }),
    recentEvents: t.relation("triggerEvents", {
      description: "The connection's newest events (its provider's and its lifecycle events), newest first.",
      args: { first: t.arg.int({ required: false, defaultValue: 10, description: "1 to 50." }) },
      query: (args) => ({ orderBy: [{ receivedAt: "desc" }, { id: "desc" }], take: Math.min(Math.max(args.first ?? 10, 1), 50) }),
    }),
  }),
});

const ReauthorizationUrl = builder.objectRef<{ authUrl: string; expiresAt: Date }>("ReauthorizationUrl").implement({
  fields: (t) => ({
    authUrl: t.exposeString("authUrl"),
    expiresAt: t.expose("expiresAt", { type: "DateTime" }),
  }),
});

const ConnectionFilterInput = builder.inputType("ConnectionFilter", {
  fields: (t) => ({
    connector: t.string({ required: false }),
    status: t.field({ type: AccountStatus, required: false }),
    search: t.string({ required: false, description: "A case-insensitive substring of account, externalId or displayName." }),
  }),
});

type ConnectionPage = Awaited<ReturnType<GraphQLContext["connections"]["page"]>>;

const ConnectedAccountEdge = builder.objectRef<ConnectionPage["edges"][number]>("ConnectedAccountEdge").implement({
  fields: (t) => ({
    cursor: t.exposeString("cursor"),
    node: t.field({ type: ConnectedAccount, resolve: (edge) => edge.node }),
  }),
});

const ConnectionsPageInfo = builder.objectRef<{ hasNextPage: boolean; endCursor: string | null }>("ConnectedAccountPageInfo").implement({
  fields: (t) => ({
    hasNextPage: t.exposeBoolean("hasNextPage"),
    endCursor: t.exposeString("endCursor", { nullable: true, description: "Pass as `after` for the next page." }),
  }),
});

const ConnectedAccountConnection = builder.objectRef<ConnectionPage>("ConnectedAccountConnection").implement({
  description: "A page of the deployment's connections, newest first.",
  fields: (t) => ({
    edges: t.field({ type: [ConnectedAccountEdge], resolve: (page) => page.edges }),
    nodes: t.field({ type: [ConnectedAccount], resolve: (page) => page.edges.map((edge) => edge.node) }),
    pageInfo: t.field({ type: ConnectionsPageInfo, resolve: (page) => ({ hasNextPage: page.hasNextPage, endCursor: page.edges.at(-1)?.cursor ?? null }) }),
  }),
});

builder.prismaObjectFields("Deployment", (t) => ({
  connectorCredentials: t.field({
    type: [ConnectorCredentials],
    description: "The deployment's own OAuth apps; connectors not listed use the service's defaults.",
    resolve: (deployment, _args, ctx) => ctx.operatorCredentials.list(deployment.id),
  }),
  webhookVerificationTokens: t.field({
    type: [WebhookVerificationToken],
    description: "Verification tokens providers handed over for this deployment (Notion's). Owners and admins only: they are secrets.",
    authScopes: (deployment) => ({ deploymentAdmin: deployment.id }),
    resolve: (deployment, _args, ctx) => ctx.verificationTokens.list(deployment.id),
  }),
  connectedAccounts: t.relation("connectedAccounts", { query: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] } }),
  connections: t.field({
    type: ConnectedAccountConnection,
    description: "The deployment's connections, newest first, in keyset pages (by createdAt, then id).",
    args: {
      filter: t.arg({ type: ConnectionFilterInput, required: false }),
      first: t.arg.int({ required: false, defaultValue: 50, description: `1 to ${CONNECTIONS_MAX_PAGE}.` }),
      after: t.arg.string({ required: false }),
    },
    resolve: (deployment, args, ctx) =>
      ctx.connections.page(deployment.id, parseConnectionFilter(args.filter ?? {}), args.first ?? 50, args.after ?? null),
  }),
  webhookUrl: t.string({
    description: "The URL to register at the provider for this connector's webhooks.",
    args: { connector: t.arg.string() },
    resolve: (deployment, args, ctx) => {
      return inboundUrl(ctx.settings.publicUrl, deployment.id, knownConnector(args.connector).name);
    },
  }),
}));

builder.mutationFields((t) => ({
  setConnectorCredentials: t.field({
    type: ConnectorCredentials,
    description: "Use the deployment's own OAuth app for a connector (replaces any earlier one).",
    args: { deploymentId: t.arg.id(), connector: t.arg.string(), input: t.arg({ type: ConnectorCredentialsInput }) },
    authScopes: (_root, args) => ({ deploymentAdmin: String(args.deploymentId) }),
    resolve: (_root, args, ctx) => ctx.operatorCredentials.set(String(args.deploymentId), args.connector, args.input),
  }),
  deleteConnectorCredentials: t.boolean({
    description: "Go back to the service's default OAuth app. False when there was nothing to delete.",
    args: { deploymentId: t.arg.id(), connector: t.arg.string() },
    authScopes: (_root, args) => ({ deploymentAdmin: String(args.deploymentId) }),
    resolve: (_root, args, ctx) => ctx.operatorCredentials.remove(String(args.deploymentId), args.connector),
  }),
  discardWebhookVerificationToken: t.boolean({
    description:
      "Forget every verification token held for the connector, confirmed or not (a re-created subscription, or tokens the provider refused). False when none was held.",
    args: { deploymentId: t.arg.id(), connector: t.arg.string() },
    authScopes: (_root, args) => ({ deploymentAdmin: String(args.deploymentId) }),
    resolve: (_root, args, ctx) => ctx.verificationTokens.discard(String(args.deploymentId), args.connector),
  }),
  confirmWebhookVerificationToken: t.field({
    type: WebhookVerificationToken,
    description:
      "Put a received verification token in force for its connector, once the provider's Verify step accepted it: it verifies the connector's events " +
      "(while no webhook secret is configured) and any other token of that connector is no longer confirmed. Owners and admins only.",
    args: { id: t.arg.id() },
    authScopes: { loggedIn: true },
    resolve: async (_root, args, ctx) => {
      const { deploymentId } = await lookUpThenGuard(ctx, "Verification token", String(args.id), "confirm verification tokens");
      const confirmed = await ctx.verificationTokens.confirm(String(args.id));
      ctx.logger.info({ deploymentId, connector: confirmed.connector, tokenId: confirmed.id }, "webhook verification token confirmed");
      return confirmed;
    },
  }),
  createReauthorizationUrl: t.field({
    type: ReauthorizationUrl,
    description:
      "A new single-use authorization URL for an existing connection's connector and account (what `auth-url` gives your server), " +
      "to send its end user when the connection is REAUTH_REQUIRED. Owners, admins and the deployment's key.",
    args: { id: t.arg.id() },
    authScopes: { loggedIn: true },
    resolve: async (_root, args, ctx) => {
      const connection = await lookUpThenGuard(ctx, "Connected account", String(args.id), "create authorization URLs");
      const def = findConnector(connection.connector);
      if (!def || authModeOf(def).connect === null) throw unknownConnector(connection.connector);
      // The same refusal as auth-url's: no link the end user would find broken.
      await requireConnectable(ctx.clientCredentials, connection.deploymentId, def);
      const session = await createConnectSession(ctx.connectSessions, connection.deploymentId, connection.connector, connection.account, { params: storedParams(connection.params) });
      return { authUrl: session.authUrl, expiresAt: session.expiresAt };
    },
  }),
  createTestAuthorizationUrl: t.field({
    type: ReauthorizationUrl,
    description:
      "A single-use authorization URL for a test account, the same as `GET /api/v1/connector/service/{connector}/auth-url?account=` " +
      "gives your server, made from a logged-in session: the console's \"Try it with a test account\" needs no API key. Owners and admins.",
    args: { deploymentId: t.arg.id(), connector: t.arg.string(), account: t.arg.string() },
    authScopes: { loggedIn: true },
    resolve: async (_root, args, ctx) => {
      const deployment = await ctx.access.deployment({ deploymentId: String(args.deploymentId) }, "ADMIN", { what: "Deployment", action: "create authorization URLs" });
      const def = findConnector(args.connector);
      if (!def || authModeOf(def).connect === null) throw unknownConnector(args.connector);
      const account = checkAccount(args.account);
      // Connection parameters the connector requires (none given here) are refused as auth-url refuses them.
      const params = readParams(def.declaration.params, new URLSearchParams());
      if (!params.ok) throw badInput(`${params.name}: ${params.message}`, [{ field: params.name, message: params.message }]);
      await requireConnectable(ctx.clientCredentials, deployment.deploymentId, def);
      const session = await createConnectSession(ctx.connectSessions, deployment.deploymentId, def.name, account, { params: params.values });
      return { authUrl: session.authUrl, expiresAt: session.expiresAt };
    },
  }),
  disconnectAccount: t.prismaField({
    type: "ConnectedAccount",
    description:
      "Delete the connection, as `DELETE /api/v1/connections/{connector}/{account}`: status DISCONNECTED, tokens forgotten, the grant revoked at the provider " +
      "where the connector declares how, `switchyard.connection_deleted` emitted. Again: nothing more happens. A new auth-url reconnects it.",
    args: { id: t.arg.id() },
    authScopes: { loggedIn: true },
    resolve: async (query, _root, args, ctx) => {
      const account = await lookUpThenGuard(ctx, "Connected account", String(args.id), "disconnect accounts");
      // The REST DELETE's operation: subscriptions released, tokens forgotten, grant revoked, connection_deleted.
      await ctx.connections.disconnect(account.deploymentId, { id: account.id });
      return ctx.db.connectedAccount.findUniqueOrThrow({ ...query, where: { id: account.id } });
    },
  }),
}));
