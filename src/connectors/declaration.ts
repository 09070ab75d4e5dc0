/**
 * The connector declaration: what one file under `providers/` holds. A connector is data — OAuth
 * endpoints, identity reading, webhook scheme, event-to-trigger mapping, routing — validated with
 * zod at start-up (`registry.ts`), errors naming the file and the field. Code appears only through
 * the few `code`/`read`/`shape` hooks below, for what a provider genuinely does unlike the others
 * (a change reader: Gmail's history, a Graph delta; the original ten triggers' documented payload shapes).
 *
 * `docs/connectors.md` ("How to add a connector") explains every field with an example.
 */
import * as z from "zod";
import { apiSchema } from "./api.ts";
import { credentialsSchema, isHttpsUrlTemplate, secretFieldsNamed } from "./credentials.ts";
import { headerName, httpsUrl, jsonPath } from "./fields.ts";
import { installationSchema } from "./installation.ts";
import { exampleValues, fillTemplate, paramsDeclarationSchema, placeholders } from "./params.ts";
import { pollingSchema } from "./polling.ts";
import { apiRequestSchema } from "./request.ts";
import { handshakeSchema, schemeSchema } from "./schemes/index.ts";
import { subscriptionSchema } from "./subscription.ts";
import { changesSchema } from "./changes.ts";
import type { ExternalIdentity, InboundRequest, InboundResult } from "./types.ts";

export const CATEGORIES = [
  "mail",
  "issue_tracker",
  "chat",
  "code",
  "calendar",
  "files",
  "crm",
  "payments",
  "commerce",
  "support",
  "forms",
  "scheduling",
  "design",
  "monitoring",
  "accounting",
  "video",
  "docs",
  "project_management",
  "marketing",
  "other",
] as const;
export { jsonPath };
export type ConnectorCategory = (typeof CATEGORIES)[number];

/**
 * How an end user's account is authorized: OAUTH2 (the authorization code flow); API_KEY and BASIC
 * (the end user types what the `credentials` section names on the hosted connect page); NONE, a
 * connector that is never authorized (Switchyard's own lifecycle events): its auth-url answers 404;
 * APP_INSTALLATION, the end user installs the operator's app (a GitHub App) and the service mints
 * installation tokens itself (the `installation` section, ./installation.ts).
 */
export const AUTH_MODES = ["OAUTH2", "API_KEY", "BASIC", "APP_INSTALLATION", "NONE"] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

/**
 * An https URL that may name connection parameters in its host (`https://{subdomain}.zendesk.com`):
 * an https URL with each placeholder read as a label here, and again filled with the declared
 * examples once the parameters are known (the declaration's superRefine).
 */
const httpsUrlTemplate = z.string().refine((t) => httpsUrl.safeParse(t.replace(/\{[a-z][a-z0-9_]*\}/g, "x")).success, "must be an https:// URL");
/** `https://{shop}.myshopify.com` of `https://{shop}.myshopify.com/admin/oauth/authorize`. */
const urlHost = (template: string) => /^[a-z]+:\/\/[^/?#]*/i.exec(template)?.[0] ?? "";


const fn = <T>(what: string) => z.custom<T>((v) => typeof v === "function", { message: `must be a function (${what})` });

export type IdentityReader = (ctx: {
  accessToken: string;
  /** The token endpoint's parsed answer. */
  token: Record<string, unknown>;
  fetchJson: (path: string, init?: { method?: string; body?: string; headers?: Record<string, string> }) => Promise<any>;
  /** `api.baseUrl`, resolved (CONNECTOR_<NAME>_API_URL). */
  apiUrl: string;
}) => Promise<ExternalIdentity>;

const oauthSchema = z.object({
  authorizeUrl: httpsUrlTemplate,
  tokenUrl: httpsUrlTemplate,
  /** May be empty for providers without scopes (the parameter is then left out). */
  scopes: z.array(z.string().min(1)),
  /** Each scope in words, for the consent page. */
  scopeDescriptions: z.record(z.string(), z.string()).default({}),
  scopeSeparator: z.enum([" ", ","]).default(" "),
  /** The authorize parameter the scopes go in (Slack user tokens: `user_scope`). */
  scopeParam: z.string().min(1).default("scope"),
  /** PKCE S256, only where the provider documents support. */
  pkce: z.boolean(),
  /** How the token endpoint wants the client secret: in the form body, or HTTP Basic. */
  clientAuth: z.enum(["client_secret_post", "client_secret_basic"]),
  /** Added to the authorize URL (Google `access_type=offline`, Atlassian `audience`). */
  extraAuthorizeParams: z.record(z.string(), z.string()).default({}),
  /**
   * Parameters the provider adds to the redirect back to us that its token request needs as well
   * (BigCommerce's `context`, the store, and `scope`): copied from the callback into the token
   * request, each at most 500 characters. The code, state and redirect_uri are always handled.
   */
  callbackParams: z
    .array(z.string().regex(/^[a-z][a-z0-9_]*$/).refine((n) => !["code", "state", "redirect_uri", "grant_type", "client_id", "client_secret", "code_verifier"].includes(n), "is already part of every token request"))
    .default([]),
  /** Reading the token endpoint's answer; RFC 6749 by default (an `error` member is an error, even with HTTP 200). */
  tokenResponse: z
    .object({
      /** A boolean that must be true, else the answer is an error (Slack `ok`, always HTTP 200). */
      okPath: jsonPath.optional(),
      /** A nested object holding the token when present (Slack's user token in `authed_user`); else the top level. */
      tokenPath: jsonPath.optional(),
    })
    .strict()
    .default({}),
  /** The provider issues refresh tokens (with the declared scopes/parameters); refresh is then exercised in tests. */
  refresh: z.boolean(),
  /**
   * How a grant is revoked at the provider when a connection is deleted; absent where its docs give
   * no revocation endpoint (the tokens are then only forgotten). Overridable with
   * CONNECTOR_<NAME>_REVOCATION_URL.
   */
  revocation: z
    .object({
      /** May hold `{clientId}` (GitHub's `/applications/{client_id}/grant`). */
      url: httpsUrl,
      method: z.enum(["POST", "DELETE"]).default("POST"),
      /**
       * Fixed query parameters the provider documents (Smartsheet's `deleteAllForApiClient=true`), added to
       * the URL — also to one set with CONNECTOR_<NAME>_REVOCATION_URL, so an override names only where.
       */
      query: z.record(z.string(), z.string()).default({}),
      /** The body member (or form field) that carries the token (RFC 7009 `token`, GitHub `access_token`). */
      tokenParam: z.string().min(1).default("token"),
      /**
       * `none`: no body and no Content-Type at all (Dropbox's RPC endpoints that take no arguments);
       * `query`: the fields in the URL's query string and no body (Zoho, Strava document it so).
       */
      body: z.enum(["form", "json", "query", "none"]).default("form"),
      /**
       * How the request is authenticated: the OAuth client (HTTP Basic or in the body), nothing
       * (Google), or the token being revoked as a bearer token (Slack `auth.revoke`).
       */
      clientAuth: z.enum(["client_secret_basic", "client_secret_post", "none", "bearer_token"]),
      /** With `client_secret_post`: the fields the client's id and secret go in (Miro's `clientId`, `clientSecret`). */
      clientFields: z.object({ id: z.string().min(1), secret: z.string().min(1) }).strict().default({ id: "client_id", secret: "client_secret" }),
      /** Which token to send: the refresh token revokes the whole grant where the provider says so (Google); else the access token. */
      token: z.enum(["access", "refresh"]).default("access"),
    })
    .strict()
    // URLs end up in access logs along the way; a client secret never goes in one.
    .refine((r) => !(r.body === "query" && r.clientAuth === "client_secret_post"), "a revocation with body \"query\" cannot send the client secret in the URL")
    .optional(),
});

/** The identity read: the one request shape (./request.ts), GET `{api.baseUrl}{path}` with the new access token unless declared otherwise (a GraphQL POST with a `{"query": …}` body). */
const identitySchema = apiRequestSchema
  .extend({
    /** Absent only with a `read` function. */
    path: z.string().startsWith("/", "must start with /").optional(),
    /** The id routed on: matched against the webhook routing paths' values. */
    idPath: jsonPath.optional(),
    displayNamePath: jsonPath.optional(),
    /** Lower-case the id (e-mail addresses). */
    lowercaseId: z.boolean().default(false),
    /** Metadata kept on the ConnectedAccount: name → path in the identity answer. */
    metadata: z.record(z.string(), jsonPath).default({}),
    /** Code, only when one GET cannot say who it is (several calls, values from the token answer). */
    read: fn<IdentityReader>("identity reader").optional(),
  })
  .strict()
  .refine((i) => i.read || (i.path && i.idPath), { message: "needs path and idPath (or a read function)", path: ["idPath"] });

const triggerSchema = z
  .object({
    /** snake_case, unique within the connector; `<connector>.<name>` is the forwarded event type. */
    name: z.string().regex(/^[a-z][a-z0-9_]*$/, "must be snake_case"),
    displayName: z.string().min(1),
    description: z.string().min(1),
    /** The provider's own name: GitHub `issues.opened` / `push`, Slack `reaction_added`, Stripe `invoice.paid`. */
    providerEvent: z.string().min(1),
    /** Exactly the `data` a forwarded event of this trigger carries (sendTestEvent sends it). */
    samplePayload: z.record(z.string(), z.unknown()),
    /**
     * Extra conditions on the body (Slack `message` without `subtype` is a new message; Trello's
     * `updateCard` with `data.listAfter` is a move). The first trigger of an event whose conditions
     * hold is the one: a conditional trigger is declared before the event's unconditional one.
     */
    when: z
      .object({ absent: z.array(jsonPath).default([]), present: z.array(jsonPath).default([]), equals: z.record(jsonPath, z.string()).default({}) })
      .strict()
      .optional(),
    /** Where this trigger's time is, before the connector-wide `occurredAt` paths. */
    occurredAt: z.array(jsonPath).default([]),
    /** Code: the documented data shape of the original triggers. New triggers forward the body unchanged. */
    shape: fn<(body: Record<string, unknown>) => Record<string, unknown>>("payload shape").optional(),
  })
  .strict();

const webhookSchema = z
  .object({
    /** "webhook": the provider POSTs events; "push": notifications that only say "changed" (Gmail). */
    delivery: z.enum(["webhook", "push"]).default("webhook"),
    scheme: schemeSchema,
    /**
     * When a subscription is created, the provider POSTs, unsigned, a JSON body whose only member is
     * this field: a token for the operator to paste back at the provider, which then signs events
     * with it (Notion's `verification_token`). Answered 200 and kept sealed for owners and admins to
     * confirm; it verifies events only once confirmed, and only while no webhook secret is configured.
     */
    verificationToken: z
      .object({ field: z.string().regex(/^[a-z][a-z0-9_]*$/, "must be a snake_case JSON member name") })
      .strict()
      .optional(),
    /** How the body is written: JSON, or application/x-www-form-urlencoded (Twilio), read as an object of its parameters. */
    format: z.enum(["json", "form"]).default("json"),
    /**
     * The provider's event name: a header, a body path, or a query parameter of the URL Switchyard
     * gave the provider (Twilio's per-number URLs; the URL is signed); `actionPath` appends `.<action>` when present.
     */
    event: z
      .object({ header: headerName.optional(), path: jsonPath.optional(), query: z.string().regex(/^[a-z][a-z0-9_]*$/).optional(), actionPath: jsonPath.optional() })
      .strict()
      .refine((e) => e.header || e.path || e.query, { message: "needs header, path or query", path: ["path"] })
      .optional(),
    /** Payload paths whose values are matched against ConnectedAccount.externalId, most specific first. */
    routing: z.array(jsonPath).default([]),
    /**
     * A path in ConnectedAccount.metadata whose values route like its externalId, after it: a Xero
     * connection holds several organisations (`tenants[].tenantId`), its externalId only the first.
     */
    routingMetadata: jsonPath.optional(),
    /** Headers whose values are matched the same way, for providers that name the account only there (Shopify `x-shopify-shop-domain`). */
    routingHeaders: z.array(headerName).default([]),
    /**
     * One delivery, many events (Asana `{"events":[…]}`, SendGrid's and HubSpot's top-level arrays): each item of the
     * array at `path` (absent: the body itself is the array) is an event of its own, its name,
     * routing, delivery id and time read in the item. An item without a delivery id is keyed by the
     * delivery's digest and its position, so a redelivered batch lands once.
     */
    batch: z.object({ path: jsonPath.optional() }).strict().optional(),
    /**
     * Where the provider's delivery id is (stable across its retries): a header, else the body's
     * value at `paths`; none, or empty ⇒ a digest of the body. One path is the usual id (`["id"]`);
     * several are the fields that together are unique where no one field is (HubSpot's eventId "is
     * not guaranteed to be unique"; Xero's events carry no id): their values joined, absent when any is missing.
     */
    deliveryId: z
      .object({ header: headerName.optional(), paths: z.array(jsonPath).min(1).optional() })
      .strict()
      .default({}),
    /**
     * Every answer to the provider has no body, refusals included (Xero: "there is no body in the
     * response", and its intent-to-receive check wants a bare 200 or 401; Airtable asks for its
     * pings to be answered 200 with an empty body). It covers the connector's whole inbound URL,
     * a subscription's own URL (`?subscription=`) included. Else the outcome as JSON and problems
     * as problem+json.
     */
    emptyAnswers: z.boolean().default(false),
    /** Where the event's time is, first readable wins; unreadable or absent ⇒ the receive time. */
    occurredAt: z.array(jsonPath).default([]),
    /**
     * For schemes whose signature covers no timestamp (`hmac` without `{timestamp}`, `token`,
     * `body_token`): the same raw body under another delivery id within this many seconds is a
     * replay — answered 2xx, nothing recorded. At least the provider's own retry/redelivery window.
     */
    replayWindowSeconds: z.number().int().positive().default(86_400),
    /** Code, for pushes that carry no event (Gmail): turns the body into events or a sync notification. */
    parse: fn<(req: InboundRequest) => InboundResult>("push parser").optional(),
    /**
     * When the connector's change reader (`changes`) runs for a push. "inline": while the notification waits, its answer saying
     * what was stored (Gmail). "queued": the notification only makes the accounts it names due for
     * the poller at once and is answered straight away (Dropbox: answer within 10 s, one
     * notification for many accounts); such connections are also read every POLL_INTERVAL, push
     * secret or not, so a notification the provider gave up on is caught up later.
     */
    reads: z.enum(["inline", "queued"]).default("inline"),
  })
  .strict()
  .refine((w) => w.parse || w.event, { message: "needs event (or a parse function)", path: ["event"] });

export const connectorDeclarationSchema = z
  .object({
    /** Lower-case, URL-safe; the file is `providers/<name>/index.ts`; env names are CONNECTOR_<NAME>_*. */
    name: z.string().regex(/^[a-z][a-z0-9_]*$/, "must be lower-case letters, digits and _"),
    displayName: z.string().min(1),
    category: z.enum(CATEGORIES),
    description: z.string().min(1),
    /** Small ORIGINAL inline SVG (not the provider's trademark logo). */
    icon: z
      .string()
      .regex(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"[\s\S]*<\/svg>$/, "must be an inline <svg xmlns=…>…</svg>")
      .refine((s) => !/<script|\son\w+=|javascript:|<foreignObject|href=/i.test(s), "must not contain scripts, handlers or links")
      .refine((s) => s.length <= 4096, "must be at most 4 KiB"),
    /** The provider documentation each fact above comes from (none for a NONE connector: it has no provider). */
    docs: z.array(httpsUrl).default([]),
    authMode: z.enum(AUTH_MODES).default("OAUTH2"),
    /** Required for OAUTH2 and APP_INSTALLATION (there: the user authorization the app may ask for during installation). */
    oauth: oauthSchema.optional(),
    /** Required for APP_INSTALLATION: the install URL, installation tokens, and how an installation is confirmed (./installation.ts). */
    installation: installationSchema.optional(),
    /** Required for API_KEY and BASIC: the fields the end user enters and the request that checks them (./credentials.ts). */
    credentials: credentialsSchema.optional(),
    /** Connection parameters (`params[<name>]` on the auth-url) that fill `{<name>}` in the oauth URLs' hosts, or in the subscription's resource and calls. */
    params: paramsDeclarationSchema,
    /** Required for OAUTH2 and APP_INSTALLATION (API_KEY and BASIC read it with `credentials.test`). */
    identity: identitySchema.optional(),
    api: apiSchema.optional(),
    /**
     * The provider's requests that prove the connector's inbound URL rather than deliver anything
     * (Slack's url_verification, Dropbox's challenge, Graph's validationToken), whichever section
     * receives there (`webhook` or `subscription.notification`): each its provider's own, from its
     * folder, answered with what the provider expects and storing nothing (schemes/handshakes.ts).
     * The two hand-offs that keep a secret are not answers of this kind and are declared where
     * what they keep is used: `webhook.verificationToken` and `subscription.webhook.secretHandshake`.
     */
    handshakes: z.array(handshakeSchema).default([]),
    /** Absent: the connector offers connect only, no inbound events. */
    webhook: webhookSchema.optional(),
    /** Per-account subscriptions the service keeps at the provider (./subscription.ts). */
    subscription: subscriptionSchema.optional(),
    /** Code: the change reader, for notifications that only say "changed", and its first position (./changes.ts). */
    changes: changesSchema.optional(),
    triggers: z.array(triggerSchema).default([]),
    /** Triggers read from the provider's list endpoints on a schedule, where it pushes nothing (./polling.ts). */
    polling: pollingSchema(jsonPath).optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const hosts = new Set(c.params.filter((p) => p.in === "host" && !p.optional).map((p) => p.name));
    const wholeHosts = new Set(c.params.filter((p) => p.in === "hostname").map((p) => p.name));
    // The OAuth URLs and the API base of an OAuth connector may name host parameters.
    const oauthUrls = c.oauth ? ([["oauth", "authorizeUrl", c.oauth.authorizeUrl], ["oauth", "tokenUrl", c.oauth.tokenUrl], ["api", "baseUrl", c.api?.baseUrl]] as const) : [];
    for (const [section, field, template] of oauthUrls) {
      if (!template) continue;
      const path = [section, field];
      const unknown = placeholders(template).filter((name) => !hosts.has(name) && !wholeHosts.has(name));
      const host = urlHost(template);
      if (unknown.length > 0) ctx.addIssue({ code: "custom", path, message: `names {${unknown.join("}, {")}}, which params does not declare as (required) host parameters` });
      else if (placeholders(template).length !== placeholders(host).length) ctx.addIssue({ code: "custom", path, message: "may name parameters only in its host" });
      else if (placeholders(host).some((name) => wholeHosts.has(name)) && !/^https:\/\/\{[a-z][a-z0-9_]*\}$/.test(host)) ctx.addIssue({ code: "custom", path, message: "a hostname parameter must be the whole host (https://{store}/…)" });
      else if (!httpsUrl.safeParse(fillTemplate(template, exampleValues(c.params), c.params)).success) ctx.addIssue({ code: "custom", path, message: "must be an https:// URL" });
    }
    if (c.subscription?.notification && !c.changes) ctx.addIssue({ code: "custom", path: ["changes"], message: "a subscription notification needs a change reader (changes.read)" });
    const keyed = c.authMode === "API_KEY" || c.authMode === "BASIC";
    const baseUrl = c.api?.baseUrl;
    if (c.authMode !== "NONE" && !baseUrl) ctx.addIssue({ code: "custom", path: ["api", "baseUrl"], message: "required (only authMode NONE connectors call no API)" });
    if (keyed) {
      if (!c.credentials) ctx.addIssue({ code: "custom", path: ["credentials"], message: `required for authMode ${c.authMode}` });
      // A keyed connector's base may name its connection params and non-secret fields anywhere.
      if (baseUrl && !isHttpsUrlTemplate(baseUrl)) ctx.addIssue({ code: "custom", path: ["api", "baseUrl"], message: "must be an https:// URL (or a template of one)" });
      for (const name of baseUrl && c.credentials ? secretFieldsNamed(c.credentials, baseUrl) : []) {
        ctx.addIssue({ code: "custom", path: ["api", "baseUrl"], message: `must not name the secret field {${name}}` });
      }
      if (c.oauth || c.identity) ctx.addIssue({ code: "custom", path: [c.oauth ? "oauth" : "identity"], message: `not used with authMode ${c.authMode} (credentials.test reads the identity)` });
      const style = c.api?.auth.style ?? "bearer";
      if (c.authMode === "BASIC" && (style !== "basic" || !c.credentials?.basic || c.credentials.key)) {
        ctx.addIssue({ code: "custom", path: ["credentials", "basic"], message: "authMode BASIC needs credentials.basic (not key) and api.auth.style basic" });
      }
      if (c.authMode === "API_KEY" && (style === "basic" || !(c.credentials?.key || c.credentials?.keyTemplate) || c.credentials.basic)) {
        ctx.addIssue({ code: "custom", path: ["credentials", "key"], message: "authMode API_KEY needs credentials.key or keyTemplate (not basic) and an api.auth style other than basic" });
      }
    } else if (c.credentials) ctx.addIssue({ code: "custom", path: ["credentials"], message: "only for authMode API_KEY or BASIC" });
    if (c.authMode !== "NONE") {
      if (!keyed && !c.oauth) ctx.addIssue({ code: "custom", path: ["oauth"], message: "required (only authMode NONE, API_KEY and BASIC connectors have none)" });
      if (!keyed && !c.identity) ctx.addIssue({ code: "custom", path: ["identity"], message: "required (only authMode NONE, API_KEY and BASIC connectors have none)" });
      if (c.docs.length === 0) ctx.addIssue({ code: "custom", path: ["docs"], message: "cite at least one page of the provider's documentation" });
      // A NONE connector's triggers are Switchyard's own events: nothing arrives by webhook, subscription or polling.
      if (c.triggers.some((t) => !c.polling?.triggers[t.name]) && !c.webhook && !c.subscription?.notification) {
        ctx.addIssue({ code: "custom", path: ["webhook"], message: "triggers need a webhook section (or a polling one, or a subscription with notifications)" });
      }
    }
    if (c.authMode === "APP_INSTALLATION" && !c.installation) ctx.addIssue({ code: "custom", path: ["installation"], message: "required for authMode APP_INSTALLATION" });
    if (c.authMode !== "APP_INSTALLATION" && c.installation) ctx.addIssue({ code: "custom", path: ["installation"], message: "only for authMode APP_INSTALLATION" });
    for (const [i, name] of (c.installation?.disconnectOn ?? []).entries()) {
      if (!c.triggers.some((t) => t.name === name)) ctx.addIssue({ code: "custom", path: ["installation", "disconnectOn", i], message: `no trigger "${name}"` });
    }
    for (const name of Object.keys(c.polling?.triggers ?? {})) if (!c.triggers.some((t) => t.name === name)) ctx.addIssue({ code: "custom", path: ["polling", "triggers", name], message: "is not one of the triggers" });
    const needed = c.subscription?.onlyWithParam;
    if (needed && !c.params.some((p) => p.name === needed)) ctx.addIssue({ code: "custom", path: ["subscription", "onlyWithParam"], message: `"${needed}" is not one of the params` });
    if (c.handshakes.length > 0 && !c.webhook && !c.subscription?.notification) {
      ctx.addIssue({ code: "custom", path: ["handshakes"], message: "answered at the inbound URL: needs a webhook section (or subscription notifications)" });
    }
    if (c.subscription?.webhook && !c.webhook) ctx.addIssue({ code: "custom", path: ["subscription", "webhook"], message: "needs the connector's webhook section to parse the events" });
    // Events sent to a subscription's own URL belong to its account: only webhooks shared by every account need routing.
    const w = c.webhook;
    if (w && !w.parse && !c.subscription?.webhook && w.routing.length === 0 && w.routingHeaders.length === 0) {
      ctx.addIssue({ code: "custom", path: ["webhook", "routing"], message: "needs at least one routing path (or routing header)" });
    }
    for (const [i, r] of (c.subscription?.resources ?? []).entries()) {
      for (const name of Object.keys(r.triggers)) {
        if (!c.triggers.some((t) => t.name === name)) ctx.addIssue({ code: "custom", path: ["subscription", "resources", i, "triggers", name], message: `no trigger "${name}"` });
      }
    }
    const names = new Set<string>();
    const unconditional = new Map<string, string>();
    c.triggers.forEach((t, i) => {
      if (names.has(t.name)) ctx.addIssue({ code: "custom", path: ["triggers", i, "name"], message: `duplicate trigger name "${t.name}"` });
      names.add(t.name);
      // One delivery must never become two events: an event without extra conditions has one trigger.
      if (!t.when) {
        const other = unconditional.get(t.providerEvent);
        if (other) ctx.addIssue({ code: "custom", path: ["triggers", i, "providerEvent"], message: `"${t.providerEvent}" is already trigger "${other}"` });
        unconditional.set(t.providerEvent, t.name);
      }
    });
  });

/** What a provider file exports (defaults may be left out). */
export type ConnectorDeclarationInput = z.input<typeof connectorDeclarationSchema>;
/** After validation, defaults filled in. */
export type ConnectorDeclaration = z.output<typeof connectorDeclarationSchema>;
export type TriggerDeclaration = ConnectorDeclaration["triggers"][number];

/** Typed identity helper for provider files: `export default declareConnector({ … })`. */
export function declareConnector(declaration: ConnectorDeclarationInput): ConnectorDeclarationInput {
  return declaration;
}

/** Validates one declaration; the error names the file and every bad field. */
export function validateDeclaration(file: string, input: unknown): ConnectorDeclaration {
  const result = connectorDeclarationSchema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `  ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  throw new Error(`Invalid connector declaration in ${file}:\n${problems.join("\n")}`);
}
