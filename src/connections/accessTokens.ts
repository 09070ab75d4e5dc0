import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { storedParams } from "../connectors/params.ts";
import { allConnectors, findConnector } from "../connectors/registry.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { ClientCredentials } from "../credentials/clientCredentials.ts";
import type { Db } from "../db/database.ts";
import { authModeOf } from "./authModes/index.ts";
import type { LifecycleEvents } from "./lifecycle.ts";
import type { ConnectionStore } from "./store/index.ts";

/**
 * A connection's tokens: the stored one while it is good, else renewed by its auth mode's strategy
 * (an OAuth refresh, an installation token minted) under the account's refresh lock; an account that
 * must be authorized again is moved to REAUTH_REQUIRED and announced
 * (`switchyard.connection_reauth_required`). The clock decides when a token is due, when a refresh
 * lock runs out and when a new token expires.
 */
export interface AccessTokenDeps {
  config: Config;
  db: Db;
  box: SecretBox;
  logger: Logger;
  clientCredentials: Pick<ClientCredentials, "resolve">;
  store: Pick<ConnectionStore, "lockRefresh" | "storeToken" | "releaseRefresh" | "requireReauth">;
  lifecycle: Pick<LifecycleEvents, "emitFor">;
  clock: Clock;
}

/** Refresh this long before the provider's expiry, so a token handed out is good for a while. */
export const REFRESH_MARGIN_MS = 5 * 60_000;
/** How long one worker may hold an account's refresh lock (a crashed worker's lock runs out). */
export const REFRESH_LOCK_MS = 30_000;
const WAIT_FOR_OTHER_REFRESH_MS = 20_000;
const WAIT_STEP_MS = 100;

/** The account cannot give a token until someone reconnects it (status REAUTH_REQUIRED or DISCONNECTED). */
export class ReauthRequiredError extends Error {
  constructor(
    readonly connectedAccountId: string,
    readonly status: string,
  ) {
    super(`connected account ${connectedAccountId} is ${status}: a new authorization is needed`);
    this.name = "ReauthRequiredError";
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A usable access token with what the provider said of it (the token endpoint answers all three). */
export interface FreshToken {
  accessToken: string;
  expiresAt: Date | null;
  scopes: string[];
}

/**
 * A usable access token for a ConnectedAccount: the stored one while it has more than
 * REFRESH_MARGIN_MS left, otherwise a refreshed one. Refreshing takes the account's lock (a
 * conditional UPDATE on refreshLockedUntil) so two workers — in one process or many — never spend
 * the same refresh token; the loser waits for the winner's result. A refused refresh marks the
 * account REAUTH_REQUIRED and throws ReauthRequiredError. `forceRefresh` refreshes even a token that
 * has not expired (the provider answered 401 to it).
 */
export async function getFreshAccessToken(deps: AccessTokenDeps, connectedAccountId: string, options: { forceRefresh?: boolean } = {}): Promise<string> {
  return (await getFreshToken(deps, connectedAccountId, options)).accessToken;
}

/** getFreshAccessToken, with the token's expiry and scopes as stored beside it. */
export async function getFreshToken(deps: AccessTokenDeps, connectedAccountId: string, options: { forceRefresh?: boolean } = {}): Promise<FreshToken> {
  // Waiting for another worker is real waiting (sleep), so its limit is measured on the wall clock, not the injected one.
  const deadline = performance.now() + WAIT_FOR_OTHER_REFRESH_MS;
  let seenRefreshAt: number | undefined;
  for (;;) {
    const account = await deps.db.connectedAccount.findUnique({ where: { id: connectedAccountId } });
    if (!account) throw new Error(`connected account ${connectedAccountId} does not exist`);
    if (account.status !== "ACTIVE") throw new ReauthRequiredError(account.id, account.status);
    const refreshedAt = account.lastRefreshedAt?.getTime() ?? 0;
    seenRefreshAt ??= refreshedAt;
    const now = deps.clock.now().getTime();
    // Someone else refreshed since we first looked: their token is the fresh one.
    const refreshedByOther = refreshedAt > seenRefreshAt;
    const fresh = !account.tokenExpiresAt || account.tokenExpiresAt.getTime() - now > REFRESH_MARGIN_MS;
    const stored = () => ({ accessToken: deps.box.open(account.accessTokenEncrypted), expiresAt: account.tokenExpiresAt, scopes: account.scopes });
    if (refreshedByOther || (fresh && !options.forceRefresh)) return stored();

    const def = findConnector(account.connector);
    // Renewable without the user: an OAuth refresh token, or an app installation's key.
    if (!def || !authModeOf(def).renewable(Boolean(account.refreshTokenEncrypted))) {
      if (account.tokenExpiresAt && account.tokenExpiresAt.getTime() > now && !options.forceRefresh) return stored();
      await markReauthRequired(deps, account.id, { code: "token_expired", message: "The access token expired and the provider gave no refresh token." });
      throw new ReauthRequiredError(account.id, "REAUTH_REQUIRED");
    }

    const lockedUntil = new Date(now + REFRESH_LOCK_MS);
    // The lock is taken only if nobody refreshed since this read: otherwise the refresh token read
    // here has already been spent (Atlassian rotates it) and using it would look like a revoked grant.
    const locked = await deps.store.lockRefresh(account.id, account.lastRefreshedAt, new Date(now), lockedUntil);
    if (locked) return renewHoldingLock(deps, account, lockedUntil);

    if (performance.now() > deadline) throw new Error(`connected account ${account.id}: another worker is still refreshing its token`);
    await sleep(WAIT_STEP_MS);
  }
}

async function renewHoldingLock(
  deps: AccessTokenDeps,
  account: { id: string; deploymentId: string; connector: string; externalId: string; refreshTokenEncrypted: string | null; scopes: string[]; params: unknown; lastRefreshedAt: Date | null },
  lockedUntil: Date,
): Promise<FreshToken> {
  try {
    const def = findConnector(account.connector);
    if (!def) throw new Error(`connector ${account.connector} is no longer available`);
    const now = deps.clock.now();
    const renewal = await authModeOf(def).renew({
      def,
      config: deps.config,
      credentials: await deps.clientCredentials.resolve(account.deploymentId, def),
      externalId: account.externalId,
      refreshToken: account.refreshTokenEncrypted ? deps.box.open(account.refreshTokenEncrypted) : null,
      params: storedParams(account.params),
      now,
    });
    if (renewal.kind === "refused") {
      await markReauthRequired(deps, account.id, { code: renewal.code, message: renewal.message });
      deps.logger.info({ connectedAccountId: account.id, connector: account.connector, code: renewal.code }, "refresh refused: account needs a new authorization");
      throw new ReauthRequiredError(account.id, "REAUTH_REQUIRED");
    }
    await deps.store.storeToken(account.id, lockedUntil, {
      accessTokenEncrypted: deps.box.seal(renewal.accessToken),
      // Providers that do not rotate (Google) send no new refresh token: the old one is kept.
      ...(renewal.refreshToken ? { refreshTokenEncrypted: deps.box.seal(renewal.refreshToken) } : {}),
      tokenExpiresAt: renewal.expiresAt,
      scopes: renewal.scopes,
      lastRefreshedAt: refreshedAt(now, account.lastRefreshedAt),
    });
    return { accessToken: renewal.accessToken, expiresAt: renewal.expiresAt, scopes: renewal.scopes.length ? renewal.scopes : account.scopes };
  } catch (error) {
    if (!(error instanceof ReauthRequiredError)) await deps.store.releaseRefresh(account.id, lockedUntil).catch(() => {});
    throw error;
  }
}

/**
 * lastRefreshedAt is also what a waiting worker watches and what the lock's update matches on, so each
 * refresh must move it forward even when the clock has not moved (a test's clock that stands still).
 */
const refreshedAt = (now: Date, previous: Date | null) => new Date(Math.max(now.getTime(), (previous?.getTime() ?? 0) + 1));

/** ACTIVE → REAUTH_REQUIRED; only the caller that moved the row announces it (once per lapse). */
async function markReauthRequired(deps: AccessTokenDeps, id: string, error: { code: string; message: string }) {
  if (await deps.store.requireReauth(id)) await deps.lifecycle.emitFor(id, "connection_reauth_required", { code: error.code, message: error.message.slice(0, 500) });
}

/**
 * Refreshes every active account whose token expires within REFRESH_MARGIN_MS (for a periodic
 * worker, so tokens are renewed before anyone needs them). Errors are logged per account, never thrown.
 */
export async function refreshExpiringTokens(deps: AccessTokenDeps): Promise<number> {
  const due = await deps.db.connectedAccount.findMany({
    where: {
      status: "ACTIVE",
      // A refresh token, or a connector whose strategy renews without one (an app installation's).
      OR: [{ refreshTokenEncrypted: { not: null } }, { connector: { in: allConnectors().filter((def) => authModeOf(def).renewable(false)).map((def) => def.name) } }],
      tokenExpiresAt: { lt: new Date(deps.clock.now().getTime() + REFRESH_MARGIN_MS) },
    },
    select: { id: true },
    take: 100,
  });
  let refreshed = 0;
  for (const { id } of due) {
    try {
      await getFreshAccessToken(deps, id);
      refreshed++;
    } catch (error) {
      if (!(error instanceof ReauthRequiredError)) deps.logger.warn({ err: error, connectedAccountId: id }, "token refresh failed");
    }
  }
  return refreshed;
}

/** Access tokens of connected accounts, refreshed when due: what the poller, the proxy and main.ts's refresh sweep use. */
export function createAccessTokens(deps: AccessTokenDeps) {
  return {
    fresh: (connectedAccountId: string, options: { forceRefresh?: boolean } = {}) => getFreshAccessToken(deps, connectedAccountId, options),
    /** The same, with the token's expiry and scopes (the token endpoint's answer). */
    token: (connectedAccountId: string, options: { forceRefresh?: boolean } = {}) => getFreshToken(deps, connectedAccountId, options),
    refreshExpiring: () => refreshExpiringTokens(deps),
  };
}

export type AccessTokens = ReturnType<typeof createAccessTokens>;
