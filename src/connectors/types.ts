/**
 * The runtime shape of a connector, compiled from its declaration (`declaration.ts`,
 * `compile.ts`). The core (OAuth flow, inbound webhook route, forwarding) only ever talks to this
 * shape and never branches on a connector's name.
 */
import type { AuthMode, ConnectorCategory, ConnectorDeclaration } from "./declaration.ts";
import type { HandshakeRefusal, HandshakeReply } from "./schemes/handshakes.ts";

export type { ConnectorCategory } from "./declaration.ts";

export interface TriggerDefinition {
  /** Stable snake_case name, unique within the connector; `<connector>.<name>` is the forwarded event type. */
  name: string;
  displayName: string;
  description: string;
  /** The provider's own name of the event: GitHub `issues.opened` or `push`, Slack `reaction_added`. */
  providerEvent: string;
  /** Shaped exactly like the `data` that `inbound.parse` produces for this trigger (used by sendTestEvent). */
  samplePayload: Record<string, unknown>;
}

/** The real production URLs; `resolveEndpoints` (registry.ts) applies the CONNECTOR_<NAME>_* overrides. */
export interface ProviderEndpoints {
  authorizeUrl: string;
  tokenUrl: string;
  apiUrl: string;
  /**
   * Only for connectors whose inbound requests are signed by the provider with an asymmetric key
   * (Gmail's Pub/Sub push JWTs). The caller fetches this JWKS, caches it, and passes it to
   * `inbound.verify` as `keys`. Overridable with CONNECTOR_<NAME>_JWKS_URL.
   */
  jwksUrl?: string;
  /** Only for connectors that declare `oauth.revocation`; overridable with CONNECTOR_<NAME>_REVOCATION_URL. */
  revocationUrl?: string;
  /** Set by resolveEndpoints when CONNECTOR_<NAME>_API_URL is: a connection base on a declared host of its own moves under it too (api.ts resolveApiBase). */
  apiUrlOverridden?: boolean;
}

/** The token response normalized to one shape, whatever the provider answered. */
export interface NormalizedToken {
  accessToken: string;
  /** Absent when the provider did not send one (Google does not resend it on refresh): keep the old one. */
  refreshToken?: string;
  /** Seconds from now. Absent ⇒ the token does not expire (GitHub OAuth apps, Slack without rotation). */
  expiresIn?: number;
  scopes: string[];
  raw: Record<string, unknown>;
}

export interface OAuthSpec {
  scopes: string[];
  /** Each scope in words, for the consent page ("Read your email messages and settings"). */
  scopeDescriptions?: Record<string, string>;
  scopeSeparator: " " | ",";
  /**
   * The authorize query parameter the scopes go in. Default "scope". Slack puts user-token scopes in
   * `user_scope` (a `scope` parameter would ask for a bot token instead).
   */
  scopeParam?: string;
  /** PKCE S256; only where the provider supports it. */
  pkce: boolean;
  clientAuth: "client_secret_post" | "client_secret_basic";
  /** e.g. Google access_type=offline&prompt=consent, Atlassian audience=api.atlassian.com */
  extraAuthorizeParams?: Record<string, string>;
  /** Callback parameters passed on to the token request (BigCommerce's `context`). */
  callbackParams?: string[];
  /** The provider issues refresh tokens. */
  refresh?: boolean;
  /** How a grant is revoked at the provider (declaration.ts `oauth.revocation`); absent: it is not. */
  revocation?: RevocationSpec;
  /**
   * Normalizes the parsed JSON body of a token response (code exchange or refresh). Throws
   * `TokenResponseError` (tokenResponse.ts) when the body is an error, including providers that answer errors with
   * HTTP 200 (GitHub `{error}`, Slack `{ok:false}`).
   */
  readTokenResponse(body: Record<string, unknown>): NormalizedToken;
}

export interface RevocationSpec {
  method: "POST" | "DELETE";
  tokenParam: string;
  /** `none`: no body and no Content-Type (Dropbox auth/token/revoke); `query`: the fields in the URL, no body (Zoho, Strava). */
  body: "form" | "json" | "query" | "none";
  /** Fixed query parameters, added to the URL (the declared one or an override). */
  query: Record<string, string>;
  clientAuth: "client_secret_basic" | "client_secret_post" | "none" | "bearer_token";
  /** Where `client_secret_post` puts the client's id and secret. */
  clientFields: { id: string; secret: string };
  token: "access" | "refresh";
}

export interface ExternalIdentity {
  /** What inbound events are routed by (NormalizedEvent.externalIds). */
  externalId: string;
  displayName?: string;
  metadata?: Record<string, unknown>;
  /**
   * The first position of the connection's change reader (`changes.start`: Gmail's historyId at
   * connect time), stored with the connection and read from on the first notification.
   */
  cursor?: string;
}

/** Header names lower-cased; rawBody exactly as received (signatures are over these bytes). */
export interface InboundRequest {
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
  /** Default POST; handshakes may come as GET (Dropbox). */
  method?: string;
  query?: URLSearchParams;
  /** The public URL the provider called (for schemes that sign it, like Square). */
  url?: string;
}

/** Options for an identity read that is not a plain GET. */
export interface FetchInit {
  method?: string;
  body?: string;
  headers?: Record<string, string>;
}

export type VerifyResult =
  | { ok: true }
  | {
      ok: false;
      reason: string;
      /**
       * Set when the signature names a key the caller's cached JWKS does not have (key rotation):
       * refetch `endpoints.jwksUrl` once and call verify again before rejecting.
       */
      refreshKeys?: boolean;
    };

/** One public key as served in a JWKS (RFC 7517); RSA keys carry n and e. */
export interface PublicJwk {
  kty: string;
  kid?: string;
  alg?: string;
  use?: string;
  n?: string;
  e?: string;
  [member: string]: unknown;
}

/** A JSON Web Key Set as served at a jwks_uri. */
export interface JsonWebKeySet {
  keys: PublicJwk[];
}

export interface VerificationKeys {
  jwks?: JsonWebKeySet;
}

export interface NormalizedEvent {
  /** One of the connector's trigger names. */
  trigger: string;
  /** Candidate external ids to route to a ConnectedAccount, most specific first. */
  externalIds: string[];
  /** Stable across provider retries of the same delivery (GitHub X-GitHub-Delivery, Slack event_id, …). */
  dedupeKey: string;
  /** When it happened, as the provider says; absent when it says nothing readable: then it is when Switchyard received it. */
  occurredAt?: Date;
  /** The event data forwarded to the operator: a documented subset (see each connector's events.ts). */
  data: Record<string, unknown>;
  /** The watched resource whose subscription brought it (§13), set by the subscription's notification handling. */
  resource?: Record<string, string> | null;
}

/**
 * A push notification that carries no event data, only "account X changed up to cursor C" (Gmail
 * Pub/Sub). The caller finds the ConnectedAccount by externalIds and runs the connector's change
 * reader (`changes.read`) with the account's token and its stored position.
 */
export interface SyncNotification {
  externalIds: string[];
  /** The provider's position after the change (Gmail historyId). */
  cursor: string;
  /** The notification's own delivery id (Pub/Sub messageId), stable across push retries. */
  dedupeKey: string;
  /** When the provider sent it; absent when unreadable (then the events read are dated when they are stored). */
  occurredAt?: Date;
}

/**
 * May be empty (an event type no trigger maps). `sync` is set for notification-only pushes read
 * while the push waits; `changed` for those read later by the poller (`webhook.reads: "queued"`):
 * the external ids of every account the notification names.
 */
export type InboundResult = { kind: "events"; events: NormalizedEvent[]; sync?: SyncNotification; changed?: string[] };

export interface ConnectorDefinition {
  /** Lower-case, URL-safe; appears in paths, env names (upper-cased) and event types. */
  name: string;
  displayName: string;
  category: ConnectorCategory;
  description: string;
  /** A small inline SVG string (simple original artwork, not the provider's trademark logo). */
  icon: string;
  /** The provider documentation the declaration's facts come from. */
  docs: string[];
  /** The validated declaration this was compiled from (for generic tooling: tests, docs table). */
  declaration: ConnectorDeclaration;
  /** How an account is authorized; NONE: never (Switchyard's own events; its auth-url is 404). */
  authMode: AuthMode;
  endpoints: ProviderEndpoints;
  oauth: OAuthSpec;
  /**
   * Called with the normalized token; `fetchJson(path)` GETs `${apiUrl}${path}` with the bearer
   * token and returns parsed JSON (throws on non-2xx).
   */
  readIdentity(ctx: {
    accessToken: string;
    token: Record<string, unknown>;
    fetchJson: (url: string, init?: FetchInit) => Promise<any>;
    apiUrl: string;
    /** The app's clock when the account connects (a change reader's first position may be a time). */
    now: Date;
  }): Promise<ExternalIdentity>;
  triggers: TriggerDefinition[];
  inbound: {
    /**
     * gmail = "push" (Pub/Sub); "subscription": notifications for per-account subscriptions, verified
     * with each subscription's own secret (src/subscriptions/notifications.ts); "none" for connectors without inbound events.
     */
    delivery: "webhook" | "push" | "subscription" | "none";
    /** Push connectors only: "queued" when the poller reads what a notification announces (`webhook.reads`). */
    reads: "inline" | "queued";
    /** The shared scheme verifying inbound requests (`hmac`, `stripe`, …); null without inbound events. */
    scheme: string | null;
    /**
     * Set when the scheme's signature covers no timestamp: a body seen under another delivery id
     * within this many seconds is a replay (declaration `webhook.replayWindowSeconds`).
     */
    replayWindowSeconds?: number;
    /**
     * A URL-verification challenge or handshake, answered at `stage` (before or after the
     * signature check); undefined for an ordinary delivery; a refusal (400) for a malformed one.
     * Before the signature check the secret is not used.
     */
    handshake(req: InboundRequest, secret: string, stage: "before_verify" | "after_verify"): HandshakeReply | HandshakeRefusal | undefined;
    /**
     * The provider hands over a token at subscription for the operator to paste back (declaration
     * `webhook.verificationToken`; Notion's `verification_token`).
     */
    sendsVerificationToken: boolean;
    /**
     * The token when `req` is that unsigned hand-off; undefined for anything else, and always for
     * connectors that declare none. Anyone can send one: the caller keeps it, never puts it in force.
     */
    verificationToken(req: InboundRequest): string | undefined;
    /**
     * Verifies over the raw body, in constant time, BEFORE parsing. `secret` is the webhook secret
     * (for push connectors: see the connector's events.ts); `now` is injectable; `keys` carries the
     * JWKS for connectors with `endpoints.jwksUrl`.
     */
    verify(req: InboundRequest, secret: string, now: Date, keys?: VerificationKeys): VerifyResult;
    /** Only called after verify succeeded. */
    parse(req: InboundRequest): InboundResult;
  };
}
