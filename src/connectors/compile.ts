/**
 * Declaration → runtime connector. Everything a provider file states as data becomes the generic
 * behaviour here: one token-response reader, one identity reader, one verifier (the declared shared
 * scheme), one event parser (event name → trigger → routing, dedupe and time from the declared
 * paths). Nothing here knows a provider by name.
 */
import { connectionChangeReader } from "./changes.ts";
import type { ConnectorDeclaration, TriggerDeclaration } from "./declaration.ts";
import { readProviderDate } from "./dates.ts";
import { asRecord, asString, deliveryId, parseJsonObject, valueAt, valuesAt, withoutPath } from "./json.ts";
import { pathWithQuery } from "./request.ts";
import { jwksUrlOf, secretPathOf, signsTimestamp, verifyWithScheme } from "./schemes/index.ts";
import { readVerificationToken } from "./schemes/verificationToken.ts";
import { bodyDigest } from "./signatures.ts";
import { readStandardTokenResponse, TokenResponseError } from "./tokenResponse.ts";
import type { ConnectorDefinition, ExternalIdentity, InboundRequest, InboundResult, NormalizedEvent, NormalizedToken } from "./types.ts";

type OAuthDeclaration = NonNullable<ConnectorDeclaration["oauth"]>;
type IdentityDeclaration = NonNullable<ConnectorDeclaration["identity"]>;

function tokenReader(decl: ConnectorDeclaration, oauth: OAuthDeclaration): (body: Record<string, unknown>) => NormalizedToken {
  const { okPath, tokenPath } = oauth.tokenResponse;
  return (body) => {
    if (okPath && valueAt(body, okPath) !== true) {
      throw new TokenResponseError(asString(body.error) ?? `${decl.name}_error`, asString(body.error_description));
    }
    const nested = tokenPath ? asRecord(valueAt(body, tokenPath)) : undefined;
    const source = nested && typeof nested.access_token === "string" ? nested : body;
    // Read from the token object, but report the whole answer as raw (identity may need its other parts).
    return { ...readStandardTokenResponse(source), raw: body };
  };
}

function identityReader(decl: ConnectorDeclaration, identity: IdentityDeclaration): ConnectorDefinition["readIdentity"] {
  const read = identity.read ?? declaredIdentityReader(decl, identity);
  const start = connectionChangeReader(decl)?.start;
  if (!start) return read;
  // A connection's change reader starts where the account is when it connects: the first change after is read.
  return async (ctx) => {
    const result = await read(ctx);
    const cursor = await start({ fetchJson: ctx.fetchJson, resource: "", answer: {}, now: ctx.now });
    return cursor === undefined ? result : { ...result, cursor };
  };
}

function declaredIdentityReader(decl: ConnectorDeclaration, identity: IdentityDeclaration): ConnectorDefinition["readIdentity"] {
  return async ({ fetchJson }) => {
    const body = identity.body === undefined ? undefined : JSON.stringify(identity.body);
    const answer = await fetchJson(pathWithQuery(identity.path!, identity.query), { method: identity.method, body, headers: identity.headers });
    const id = asString(valueAt(answer, identity.idPath!));
    if (!id) throw new Error(`${decl.displayName} ${identity.path} answered without ${identity.idPath}`);
    const displayName = identity.displayNamePath ? asString(valueAt(answer, identity.displayNamePath)) : undefined;
    const metadata: Record<string, unknown> = {};
    for (const [key, path] of Object.entries(identity.metadata)) {
      const value = valueAt(answer, path);
      if (value !== undefined) metadata[key] = value;
    }
    return { externalId: identity.lowercaseId ? id.toLowerCase() : id, displayName, metadata } satisfies ExternalIdentity;
  };
}

/** The provider's event name as triggers name it: `issues.opened` (event + action), `push`, `reaction_added`. */
function eventKeys(decl: ConnectorDeclaration, req: InboundRequest, body: Record<string, unknown>): string[] {
  const spec = decl.webhook?.event;
  if (!spec) return [];
  const name = spec.header ? req.headers[spec.header]?.trim() : spec.query ? req.query?.get(spec.query)?.trim() : asString(valueAt(body, spec.path!));
  if (!name) return [];
  const action = spec.actionPath ? asString(valueAt(body, spec.actionPath)) : undefined;
  // An action no trigger names falls back to the bare event: events whose actions are free-form
  // (repository_dispatch) or that the provider documents without actions have one trigger.
  return action ? [`${name}.${action}`, name] : [name];
}

function matches(trigger: TriggerDeclaration, body: Record<string, unknown>): boolean {
  if (!trigger.when) return true;
  if (trigger.when.absent.some((path) => valuesAt(body, path).length > 0)) return false;
  if (!trigger.when.present.every((path) => valuesAt(body, path).length > 0)) return false;
  return Object.entries(trigger.when.equals).every(([path, value]) => asString(valueAt(body, path)) === value);
}

/**
 * The first readable time at `paths`. Declarations do not say what a number counts: past 1e11 it
 * is milliseconds (Jira `timestamp`), else seconds (Slack `event_time`, "1767261600.000200" ts).
 */
function firstDate(body: Record<string, unknown>, paths: string[]): Date | undefined {
  for (const path of paths) {
    const value = valueAt(body, path);
    const numeric = typeof value === "number" ? value : typeof value === "string" && /^\d+(\.\d+)?$/.test(value) ? Number(value) : undefined;
    const epoch = numeric === undefined ? undefined : numeric > 1e11 ? "milliseconds" : "seconds";
    const date = readProviderDate(value, epoch ? { epoch } : {});
    if (date) return date;
  }
  return undefined;
}

function eventParser(decl: ConnectorDeclaration): (req: InboundRequest) => InboundResult {
  const webhook = decl.webhook;
  if (webhook?.parse) return webhook.parse;
  const byEvent = new Map<string, TriggerDeclaration[]>();
  for (const trigger of decl.triggers) byEvent.set(trigger.providerEvent, [...(byEvent.get(trigger.providerEvent) ?? []), trigger]);
  const none: InboundResult = { kind: "events", events: [] };
  // A secret carried in the body (Figma's passcode) is the provider's proof, not event data: it is
  // neither stored (members read the event log) nor forwarded.
  const secretPath = webhook ? secretPathOf(webhook.scheme) : undefined;
  const payload = (body: Record<string, unknown>) => (secretPath ? withoutPath(body, secretPath) : body);

  /**
   * One event from one body (or one item of a batched delivery); `fallbackKey()` when it carries no
   * delivery id (a function: the body's digest is computed only then).
   */
  const parseOne = (req: InboundRequest, body: Record<string, unknown>, fallbackKey: () => string): NormalizedEvent | undefined => {
    if (!webhook) return undefined;
    let trigger: TriggerDeclaration | undefined;
    for (const key of eventKeys(decl, req, body)) {
      trigger = byEvent.get(key)?.find((t) => matches(t, body));
      if (trigger) break;
    }
    if (!trigger) return undefined;

    const externalIds = [
      ...new Set(
        [...webhook.routing.flatMap((path) => valuesAt(body, path).map(asString)), ...webhook.routingHeaders.map((name) => req.headers[name]?.trim())].filter(
          (id): id is string => Boolean(id),
        ),
      ),
    ];
    // An empty delivery id is no id: it would make every delivery a duplicate of the first.
    const delivery =
      (webhook.deliveryId.header && !webhook.batch ? deliveryId(req.headers[webhook.deliveryId.header]) : undefined) ??
      (webhook.deliveryId.paths ? bodyDeliveryId(body, webhook.deliveryId.paths) : undefined);
    return {
      trigger: trigger.name,
      externalIds,
      dedupeKey: delivery ?? fallbackKey(),
      // An unreadable or absent provider time is none, never an error: acceptEvents takes the receive time.
      occurredAt: firstDate(body, [...trigger.occurredAt, ...webhook.occurredAt]),
      data: trigger.shape ? trigger.shape(payload(body)) : payload(body),
    };
  };

  return (req) => {
    if (!webhook) return none;
    if (webhook.batch) {
      const items = batchItems(req.rawBody, webhook.batch.path);
      const digest = `sha256:${bodyDigest(req.rawBody)}`;
      // Keyed by the delivery (its header id, else its digest) and the item's position.
      const base = (webhook.deliveryId.header ? deliveryId(req.headers[webhook.deliveryId.header]) : undefined) ?? digest;
      const events = items.flatMap((item, i) => {
        const event = parseOne(req, item, () => `${base}#${i}`);
        return event ? [event] : [];
      });
      return { kind: "events", events };
    }
    const body = webhook.format === "form" ? Object.fromEntries(new URLSearchParams(req.rawBody.toString("utf8"))) : parseJsonObject(req.rawBody);
    if (!body) return none;
    const event = parseOne(req, body, () => `sha256:${bodyDigest(req.rawBody)}`);
    return { kind: "events", events: event ? [event] : [] };
  };
}

/**
 * The value at the one path, as it is; or the values at several joined, each escaped so that no two
 * different lists join alike. Undefined when any is missing.
 */
function bodyDeliveryId(body: Record<string, unknown>, paths: string[]): string | undefined {
  if (paths.length === 1) return deliveryId(valueAt(body, paths[0]));
  const parts = paths.map((path) => deliveryId(valueAt(body, path)));
  return parts.every((part) => part !== undefined) ? parts.map((part) => encodeURIComponent(part!)).join(":") : undefined;
}

/** At most this many events from one delivery: a larger batch is refused whole rather than cut. */
const MAX_BATCH = 1000;

/** The object items of a batched delivery (the array at `path`, or the body itself). */
function batchItems(rawBody: Buffer, path: string | undefined): Record<string, unknown>[] {
  let parsed: unknown;
  if (path) parsed = valueAt(parseJsonObject(rawBody) ?? {}, path);
  else {
    const text = rawBody.toString("utf8").trimStart();
    // The body is an array: each item is read as an object body of its own.
    parsed = text.startsWith("[") ? (parseJsonObject(Buffer.from(`{"items":${text}}`, "utf8"))?.items as unknown) : undefined;
  }
  if (!Array.isArray(parsed) || parsed.length > MAX_BATCH) return [];
  return parsed.map((item) => asRecord(item)).filter((item): item is Record<string, unknown> => Boolean(item));
}

function authorization(decl: ConnectorDeclaration, oauth: OAuthDeclaration, identity: IdentityDeclaration) {
  const jwksUrl = decl.webhook && jwksUrlOf(decl.webhook.scheme);
  return {
    endpoints: {
      authorizeUrl: oauth.authorizeUrl,
      tokenUrl: oauth.tokenUrl,
      apiUrl: decl.api?.baseUrl ?? "",
      ...(jwksUrl ? { jwksUrl } : {}),
      ...(oauth.revocation ? { revocationUrl: oauth.revocation.url } : {}),
    },
    oauth: {
      scopes: oauth.scopes,
      scopeDescriptions: oauth.scopeDescriptions,
      scopeSeparator: oauth.scopeSeparator,
      scopeParam: oauth.scopeParam,
      pkce: oauth.pkce,
      clientAuth: oauth.clientAuth,
      extraAuthorizeParams: oauth.extraAuthorizeParams,
      callbackParams: oauth.callbackParams,
      refresh: oauth.refresh,
      ...(oauth.revocation ? { revocation: (({ url: _url, ...spec }) => spec)(oauth.revocation) } : {}),
      readTokenResponse: tokenReader(decl, oauth),
    },
    readIdentity: identityReader(decl, identity),
  } satisfies Pick<ConnectorDefinition, "endpoints" | "oauth" | "readIdentity">;
}

/**
 * An authMode NONE connector (Switchyard's own events), API_KEY or BASIC one has no authorization
 * server. Nothing reaches these: every OAuth way into an authorization refuses the connector first
 * (NONE: its auth-url is 404; API_KEY/BASIC: the connect form checks credentials instead), so they
 * only fill the shape, and throw if that ever changes.
 */
const neverAuthorized = (): never => {
  throw new Error("this connector is never authorized (authMode NONE)");
};
const NEVER_AUTHORIZED: Pick<ConnectorDefinition, "endpoints" | "oauth" | "readIdentity"> = {
  endpoints: { authorizeUrl: "", tokenUrl: "", apiUrl: "" },
  oauth: { scopes: [], scopeSeparator: " ", pkce: false, clientAuth: "client_secret_post", readTokenResponse: neverAuthorized },
  readIdentity: neverAuthorized,
};

export function compileConnector(decl: ConnectorDeclaration): ConnectorDefinition {
  const webhook = decl.webhook;
  const scheme = webhook?.scheme;
  return {
    name: decl.name,
    displayName: decl.displayName,
    category: decl.category,
    description: decl.description,
    icon: decl.icon,
    docs: decl.docs,
    declaration: decl,
    authMode: decl.authMode,
    ...(decl.oauth && decl.identity
      ? authorization(decl, decl.oauth, decl.identity)
      : // API_KEY and BASIC: no authorization server (src/connect/credentials.ts reads the identity); NONE: no API.
        { ...NEVER_AUTHORIZED, endpoints: { ...NEVER_AUTHORIZED.endpoints, apiUrl: decl.api?.baseUrl ?? "" } }),
    triggers: decl.triggers.map((t) => ({
      name: t.name,
      displayName: t.displayName,
      description: t.description,
      providerEvent: t.providerEvent,
      samplePayload: t.samplePayload,
    })),
    inbound: {
      delivery: webhook ? webhook.delivery : decl.subscription?.notification ? "subscription" : "none",
      reads: webhook?.reads ?? "inline",
      scheme: scheme?.type ?? null,
      ...(webhook && !signsTimestamp(webhook.scheme) ? { replayWindowSeconds: webhook.replayWindowSeconds } : {}),
      verify: (req, secret, now, keys) =>
        scheme ? verifyWithScheme(scheme, { req, secret, now, keys }) : { ok: false, reason: `${decl.displayName} sends no webhooks` },
      handshake: (req, secret, stage) => {
        // Before the signature check the caller is anyone: no handshake may use the secret then.
        const key = stage === "after_verify" ? secret : "";
        for (const handshake of decl.handshakes) {
          if (handshake.stage !== stage) continue;
          const reply = handshake.answer(req, key);
          if (reply) return reply;
        }
        return undefined;
      },
      sendsVerificationToken: Boolean(webhook?.verificationToken),
      verificationToken: (req) => (webhook?.verificationToken ? readVerificationToken(req, webhook.verificationToken.field) : undefined),
      parse: eventParser(decl),
    },
  };
}
