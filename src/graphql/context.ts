import type { Logger } from "pino";
import { type Access, type AccessCache, createAccess } from "../auth/access.ts";
import type { SubscriptionManager } from "../subscriptions/manager.ts";
import type { ApiKeys } from "../auth/apiKeys.ts";
import type { Sessions } from "../auth/sessions.ts";
import { type Principal, sessionTokenFrom } from "../auth/principal.ts";
import type { Revocations } from "../auth/revocations.ts";
import type { Users } from "../auth/users.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { ConnectSettings } from "../connections/connectSettings.ts";
import type { ClientCredentials } from "../credentials/clientCredentials.ts";
import type { OperatorCredentials } from "../credentials/operatorCredentials.ts";
import type { Connections } from "../connections/connections.ts";
import type { ReadPollingHealth } from "../connections/connection.ts";
import type { LastEventAtLoader } from "../connections/lastEventAt.ts";
import type { Resources } from "../connections/resources/resources.ts";
import type { OAuthDeps } from "../connect/deps.ts";
import type { Db } from "../db/database.ts";
import type { Sql } from "../db/sql.ts";
import type { DeliveryQueue } from "../delivery/queue/index.ts";
import type { SigningSecrets } from "../deployments/signingSecrets.ts";
import type { VerificationTokens } from "../credentials/verificationTokens.ts";
import { AppError } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import type { Forwarding } from "../forwarding/index.ts";
import type { Organizations } from "../organizations/organizations.ts";
import type { RateLimit } from "../ratelimit/limiter.ts";

/** The app's authentication capabilities (src/auth/), which resolvers reach as ctx.sessions / ctx.apiKeys. */
export interface AuthCapabilities {
  sessions: Sessions;
  apiKeys: ApiKeys;
}

/** The settings resolvers read (from config.ts), and nothing else of the configuration. */
export type GraphQLSettings = Pick<
  Config,
  | "publicUrl"
  | "sessionTtlHours"
  | "signup"
  | "connectorEnv"
  | "subscriptionBufferSize"
  | "subscriptionReplayLimit"
  | "subscriptionAccessRecheckMs"
>;

/**
 * The app's capabilities resolvers reach by name (`ctx.verificationTokens.confirm(…)`); app.ts
 * builds them. Each is what some resolver uses; nothing here is "everything".
 */
export interface ContextCapabilities extends AuthCapabilities {
  /** Pothos's Prisma plugin loads each selected field through it (`...query`); small reads and writes too. */
  db: Db;
  /** Prepared statements on hot reads: the data page, the event log, delivery stats, access re-checks. */
  sql: Sql;
  logger: Logger;
  /** The app's time: what expires (invitation links) is judged by it, so tests can move it (clock.ts). */
  clock: Clock;
  settings: GraphQLSettings;
  /** Deployments' rows remembered by access checks (auth/access.ts), which `deployment(id)` serves from. */
  accessCache: AccessCache;
  /** Sign-up, log-in and password changes behind their rate limits (auth/users.ts). */
  users: Users;
  /** Organizations, their deployments and members (organizations/organizations.ts). */
  organizations: Organizations;
  /** Deployments' webhook signing secrets (deployments/signingSecrets.ts). */
  signingSecrets: SigningSecrets;
  /** A deployment's forwarding settings, pause and resume, the test event (forwarding/index.ts). */
  forwarding: Forwarding;
  /** Live notifications for subscriptions, and the ended sessions and memberships that stop them (events/, auth/revocations.ts). */
  live: { bus: EventBus; revocations: Revocations };
  /** Deployments' own OAuth apps and webhook secrets (credentials/operatorCredentials.ts). */
  operatorCredentials: OperatorCredentials;
  /** Tokens providers hand over at subscription, for owners and admins to confirm (credentials/verificationTokens.ts). */
  verificationTokens: VerificationTokens;
  /** The delivery queue's operations (delivery/queue/index.ts). */
  deliveries: DeliveryQueue;
  /** Per-account provider subscriptions (subscriptions/manager.ts). */
  subscriptions: Pick<SubscriptionManager, "retryNow" | "changed" | "deleteForConnection">;
  /** Where the connect flow may send end users back to (connections/connectSettings.ts). */
  connectSettings: ConnectSettings;
  /** The deployment's connections: listing, keyset pages, deletion (connections/connections.ts). */
  connections: Connections;
  /** What a new authorization URL is made from (connect/sessions.ts), for createReauthorizationUrl. */
  connectSessions: OAuthDeps;
  /** Connections' polling health (polling/health.ts), for ConnectedAccount.polling. */
  pollingHealth: ReadPollingHealth;
  /** What each connection watches (connections/resources/resources.ts). */
  resources: Resources;
  /** Connections' lastEventAt, a page's read in one statement (connections/lastEventAt.ts). */
  lastEventAt: LastEventAtLoader;
  /** The OAuth client (or app) in force per deployment, which createReauthorizationUrl requires as auth-url does (credentials/clientCredentials.ts). */
  clientCredentials: Pick<ClientCredentials, "resolve">;
}

export interface GraphQLContext extends ContextCapabilities {
  principal: Principal | undefined;
  access: Access;
  /** Set-Cookie values for the response (logIn, signUp, logOut). */
  cookies: string[];
  /** The caller's address, for login rate limits. */
  ip: string;
  /** SSE's `Last-Event-ID` request header: where a reconnecting stream resumes. */
  lastEventId?: string;
  /** The same credentials asked about again: a running subscription's re-check (./liveAccess.ts). */
  reauthenticate: () => Promise<Authentication | undefined>;
  /** `live.revocations.announced` before the caller was authenticated (./liveAccess.ts). */
  revocationsSeen: number;
}

/** Who the credentials name now, and until when at most (a session's or a retiring key's end). */
export interface Authentication {
  principal: Principal;
  expiresAt: Date | undefined;
}

type Credentials = { authorization?: string; cookie?: string; "x-api-key"?: string };
/** What yoga's own context holds besides ours. */
type Carried = { request: object; params: object };

/**
 * Resolves the caller from HTTP headers or graphql-ws connectionParams (same names). A credential
 * that is present but wrong is an error, not an anonymous request: the caller must learn it is wrong.
 * Every request of a known caller spends one point of its rate limit: per API key, or per user for
 * sessions (RATE_LIMITED beyond it).
 */
async function resolvePrincipal(auth: AuthCapabilities, userRateLimit: RateLimit, credentials: Credentials): Promise<Principal | undefined> {
  const apiKey = credentials["x-api-key"];
  if (apiKey) {
    // The same authentication as REST's x-api-key (messages, rate limit, last-used recording).
    const key = await auth.apiKeys.authenticate(apiKey);
    return { kind: "apiKey", apiKeyId: key.apiKeyId, deploymentId: key.deploymentId };
  }
  const token = sessionTokenFrom(credentials);
  if (!token) return undefined;
  const session = await auth.sessions.find(token);
  if (!session) {
    // A stale cookie should not lock anyone out of logging in again; a wrong bearer token is an error.
    if (credentials.authorization) throw new AppError("UNAUTHENTICATED", "The session has expired or was logged out. Log in again.");
    return undefined;
  }
  // The same budget as a key (RATE_LIMIT_PER_MINUTE), per user: all of a user's sessions share it.
  await userRateLimit.consume(`user:${session.userId}`);
  return { kind: "user", userId: session.userId, sessionId: session.id };
}

/**
 * The credentials resolvePrincipal accepted, checked again through the same session and API-key
 * caches: who they name now, or undefined once they no longer work (a session ended or expired, a
 * key revoked or past its grace period). Not rate limited: it is no new request of the caller's.
 */
async function authenticateAgain(auth: AuthCapabilities, credentials: Credentials): Promise<Authentication | undefined> {
  const apiKey = credentials["x-api-key"];
  if (apiKey) {
    const check = await auth.apiKeys.check(apiKey);
    if (!check.ok) return undefined;
    auth.apiKeys.recordUse(check.apiKeyId);
    return { principal: { kind: "apiKey", apiKeyId: check.apiKeyId, deploymentId: check.deploymentId }, expiresAt: check.expiresAt ?? undefined };
  }
  const token = sessionTokenFrom(credentials);
  const session = token ? await auth.sessions.find(token) : undefined;
  if (!session) return undefined;
  return { principal: { kind: "user", userId: session.userId, sessionId: session.id }, expiresAt: new Date(session.expiresAt) };
}

/**
 * Who is calling, and the context their operation runs with: over HTTP (./yoga.ts) and on
 * websockets (./websockets.ts). `userRateLimit` is RATE_LIMIT_PER_MINUTE, the budget API keys have too.
 */
export function createContexts(capabilities: ContextCapabilities, userRateLimit: RateLimit) {
  /**
   * Every request's context is a copy of one of these two, its own fields then set. V8 copies a
   * literal that is one lone spread along its fast path, the object's layout taken whole; spread
   * beside other properties (`{ principal, …, ...carried, ...capabilities }`), the ~30 capabilities
   * were copied one at a time: ~5 µs against ~0.1 µs in a micro-benchmark, the largest self time of
   * our own in a GraphQL data page's profile (docs/benchmarks.md). Two layouts because yoga merges
   * the context into its own with Object.assign: `request` and `params` are properties only when carried.
   */
  const layout: GraphQLContext = {
    principal: undefined,
    access: createAccess(capabilities.sql, capabilities.accessCache, undefined),
    cookies: [],
    ip: "",
    reauthenticate: async () => undefined,
    revocationsSeen: 0,
    lastEventId: undefined,
    ...capabilities,
  };
  const carriedLayout: GraphQLContext & Carried = { ...layout, request: {}, params: {} };

  return {
    resolvePrincipal: (credentials: Credentials) => resolvePrincipal(capabilities, userRateLimit, credentials),
    /** `carried`: what yoga's context holds besides ours (the request and its params), for a context made before yoga's. */
    async create(credentials: Credentials, ip: string, lastEventId?: string, carried?: Carried): Promise<GraphQLContext> {
      // Read before the caller is looked up: a revocation announced after this may not be in the answer.
      const revocationsSeen = capabilities.live.revocations.announced;
      const principal = await resolvePrincipal(capabilities, userRateLimit, credentials);
      let context: GraphQLContext;
      if (carried) {
        const withCarried = { ...carriedLayout };
        withCarried.request = carried.request;
        withCarried.params = carried.params;
        context = withCarried;
      } else {
        context = { ...layout };
      }
      context.principal = principal;
      context.access = createAccess(capabilities.sql, capabilities.accessCache, principal);
      context.cookies = [];
      context.ip = ip;
      context.reauthenticate = () => authenticateAgain(capabilities, credentials);
      context.revocationsSeen = revocationsSeen;
      context.lastEventId = lastEventId;
      return context;
    },
  };
}
export type GraphQLContexts = ReturnType<typeof createContexts>;
