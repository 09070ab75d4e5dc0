import { storedParams } from "../connectors/params.ts";
import { allConnectors, findConnector } from "../connectors/registry.ts";
import { TokenResponseError } from "../connectors/tokenResponse.ts";
import type { ConnectorDefinition } from "../connectors/types.ts";
import { hasApp, hasOAuthClient, type ResolvedCredentials } from "../credentials/clientCredentials.ts";
import { InstallationRefusedError, mintInstallationToken } from "./appInstallation.ts";
import type { Clock } from "../clock.ts";
import type { LifecycleEvents } from "../connections/lifecycle.ts";
import type { OAuthClientDeps } from "./deps.ts";
import { providerFor, refreshGrant } from "./provider.ts";

/**
 * Refreshing tokens needs the OAuth client; an account that must be authorized again is announced
 * (`switchyard.connection_reauth_required`). The clock decides when a token is due, when a refresh
 * lock runs out and when a new token expires.
 */
export interface AccessTokenDeps extends OAuthClientDeps {
  lifecycle: Pick<LifecycleEvents, "emitFor">;
  clock: Clock;
}

/** Connectors whose tokens are minted rather than refreshed (APP_INSTALLATION): they have no refresh token. */
/** Connectors whose tokens are minted (app installations), not refreshed; read from the catalog when first needed. */
const mintedConnectors = () => allConnectors().filter((def) => def.authMode === "APP_INSTALLATION").map((def) => def.name);

/** Refresh this long before the provider's expiry, so a token handed out is good for a while. */
export const REFRESH_MARGIN_MS = 5 * 60_000;
/** How long one worker may hold an account's refresh lock (a crashed worker's lock runs out). */
export const REFRESH_LOCK_MS = 30_000;
const WAIT_FOR_OTHER_REFRESH_MS = 20_000;
const WAIT_STEP_MS = 100;

/**
 * The refresh-token error codes that mean "this grant is gone; a person must authorize again"
 * (RFC 6749 invalid_grant — Google, Atlassian; GitHub's bad_refresh_token; Slack's
 * invalid_refresh_token / token_revoked / token_expired). Anything else is treated as transient.
 */
const GRANT_GONE = new Set(["invalid_grant", "bad_refresh_token", "invalid_refresh_token", "token_revoked", "token_expired", "invalid_token"]);

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

    // An app installation needs no refresh token: a new installation token is minted with the app's key.
    const minted = findConnector(account.connector)?.authMode === "APP_INSTALLATION";
    if (!account.refreshTokenEncrypted && !minted) {
      if (account.tokenExpiresAt && account.tokenExpiresAt.getTime() > now && !options.forceRefresh) return stored();
      await markReauthRequired(deps, account.id, { code: "token_expired", message: "The access token expired and the provider gave no refresh token." });
      throw new ReauthRequiredError(account.id, "REAUTH_REQUIRED");
    }

    const lockedUntil = new Date(now + REFRESH_LOCK_MS);
    // The lock is taken only if nobody refreshed since this read: otherwise the refresh token read
    // here has already been spent (Atlassian rotates it) and using it would look like a revoked grant.
    const { count } = await deps.db.connectedAccount.updateMany({
      where: {
        id: account.id,
        status: "ACTIVE",
        lastRefreshedAt: account.lastRefreshedAt,
        OR: [{ refreshLockedUntil: null }, { refreshLockedUntil: { lt: new Date(now) } }],
      },
      data: { refreshLockedUntil: lockedUntil },
    });
    if (count === 1) return refreshHoldingLock(deps, account, lockedUntil);

    if (performance.now() > deadline) throw new Error(`connected account ${account.id}: another worker is still refreshing its token`);
    await sleep(WAIT_STEP_MS);
  }
}

async function refreshHoldingLock(
  deps: AccessTokenDeps,
  account: { id: string; deploymentId: string; connector: string; externalId: string; refreshTokenEncrypted: string | null; scopes: string[]; params: unknown; lastRefreshedAt: Date | null },
  lockedUntil: Date,
): Promise<FreshToken> {
  const release = () =>
    deps.db.connectedAccount.updateMany({ where: { id: account.id, refreshLockedUntil: lockedUntil }, data: { refreshLockedUntil: null } });
  try {
    const def = findConnector(account.connector);
    if (!def) throw new Error(`connector ${account.connector} is no longer available`);
    const credentials = await deps.clientCredentials.resolve(account.deploymentId, def);
    if (def.authMode === "APP_INSTALLATION") return await mintHoldingLock(deps, def, credentials, account, lockedUntil);
    if (!hasOAuthClient(credentials)) throw new Error(`no OAuth client is configured for ${def.name}`);
    const token = await refreshGrant(providerFor(deps.config, def, credentials, storedParams(account.params)), deps.box.open(account.refreshTokenEncrypted!));
    const now = deps.clock.now();
    const expiresAt = token.expiresIn ? new Date(now.getTime() + token.expiresIn * 1000) : null;
    await deps.db.connectedAccount.updateMany({
      where: { id: account.id, refreshLockedUntil: lockedUntil, status: "ACTIVE" },
      data: {
        accessTokenEncrypted: deps.box.seal(token.accessToken),
        // Providers that do not rotate (Google) send no new refresh token: keep the old one.
        ...(token.refreshToken ? { refreshTokenEncrypted: deps.box.seal(token.refreshToken) } : {}),
        tokenExpiresAt: expiresAt,
        ...(token.scopes.length ? { scopes: token.scopes } : {}),
        lastRefreshedAt: refreshedAt(now, account.lastRefreshedAt),
        refreshLockedUntil: null,
      },
    });
    return { accessToken: token.accessToken, expiresAt, scopes: token.scopes.length ? token.scopes : account.scopes };
  } catch (error) {
    // The installation is gone at the provider (uninstalled, or the app's access to it revoked).
    if (error instanceof InstallationRefusedError && (error.status === 404 || error.status === 403)) {
      await markReauthRequired(deps, account.id, { code: "installation_gone", message: `The provider refused a token for this installation (${error.message}).` });
      throw new ReauthRequiredError(account.id, "REAUTH_REQUIRED");
    }
    if (error instanceof TokenResponseError && GRANT_GONE.has(error.code)) {
      await markReauthRequired(deps, account.id, { code: error.code, message: error.description ?? `The provider refused the refresh token (${error.code}).` });
      deps.logger.info({ connectedAccountId: account.id, connector: account.connector, code: error.code }, "refresh refused: account needs a new authorization");
      throw new ReauthRequiredError(account.id, "REAUTH_REQUIRED");
    }
    await release().catch(() => {});
    throw error;
  }
}

/** APP_INSTALLATION: a new installation token, authenticated as the app, stored under the same lock a refresh holds. */
async function mintHoldingLock(
  deps: AccessTokenDeps,
  def: ConnectorDefinition,
  credentials: ResolvedCredentials,
  account: { id: string; externalId: string; scopes: string[]; lastRefreshedAt: Date | null },
  lockedUntil: Date,
): Promise<FreshToken> {
  if (!hasApp(credentials)) throw new Error(`no app is configured for ${def.name}`);
  const now = deps.clock.now();
  const token = await mintInstallationToken(def, deps.config.connectorEnv, credentials.app, account.externalId, now);
  await deps.db.connectedAccount.updateMany({
    where: { id: account.id, refreshLockedUntil: lockedUntil, status: "ACTIVE" },
    data: {
      accessTokenEncrypted: deps.box.seal(token.accessToken),
      tokenExpiresAt: token.expiresAt,
      ...(token.scopes.length ? { scopes: token.scopes } : {}),
      lastRefreshedAt: refreshedAt(now, account.lastRefreshedAt),
      refreshLockedUntil: null,
    },
  });
  return { accessToken: token.accessToken, expiresAt: token.expiresAt, scopes: token.scopes.length ? token.scopes : account.scopes };
}

/**
 * lastRefreshedAt is also what a waiting worker watches and what the lock's update matches on, so each
 * refresh must move it forward even when the clock has not moved (a test's clock that stands still).
 */
const refreshedAt = (now: Date, previous: Date | null) => new Date(Math.max(now.getTime(), (previous?.getTime() ?? 0) + 1));

/** ACTIVE → REAUTH_REQUIRED; only the caller that moved the row announces it (once per lapse). */
async function markReauthRequired(deps: AccessTokenDeps, id: string, error: { code: string; message: string }) {
  const { count } = await deps.db.connectedAccount.updateMany({
    where: { id, status: "ACTIVE" },
    data: { status: "REAUTH_REQUIRED", refreshLockedUntil: null },
  });
  if (count === 1) await deps.lifecycle.emitFor(id, "connection_reauth_required", { code: error.code, message: error.message.slice(0, 500) });
}

/**
 * Refreshes every active account whose token expires within REFRESH_MARGIN_MS (for a periodic
 * worker, so tokens are renewed before anyone needs them). Errors are logged per account, never thrown.
 */
export async function refreshExpiringTokens(deps: AccessTokenDeps): Promise<number> {
  const due = await deps.db.connectedAccount.findMany({
    where: {
      status: "ACTIVE",
      OR: [{ refreshTokenEncrypted: { not: null } }, { connector: { in: mintedConnectors() } }],
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
