/**
 * Connections as the operator's server uses them with its API key: finding one by connector and
 * account within the caller's deployment, and its current access token (refreshed first when due).
 * The token endpoint and the proxy share this; tokens leave only through their answers, never a log.
 */
import type { Logger } from "pino";
import { createTtlCache } from "../cache/ttlCache.ts";
import type { Clock } from "../clock.ts";
import { findConnector } from "../connectors/registry.ts";
import type { ConnectorDefinition } from "../connectors/types.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Sql } from "../db/sql.ts";
import { AppError, connectionNotFound, unknownConnector } from "../errors.ts";
import { type AccessTokens, type FreshToken, REFRESH_MARGIN_MS, ReauthRequiredError } from "./accessTokens.ts";
import { authModeOf } from "./authModes/index.ts";

/** What the token endpoint and the proxy need of the connected_account row (no token columns). */
export interface UsableConnection {
  id: string;
  def: ConnectorDefinition;
  account: string;
  params: unknown;
  metadata: unknown;
  /** The account holds a refresh token: a provider 401 can be answered by refreshing once. */
  refreshable: boolean;
  /** The token as read with the row (sealed), while it has more than REFRESH_MARGIN_MS left. */
  stored?: { sealed: string; expiresAt: Date | null; scopes: string[]; /** Opened once per cached row (the proxy's hot path). */ opened?: string };
}

/**
 * How long the proxy reuses a connection row it read (status, params, sealed token) without asking
 * the database again. A change made on this instance (deletion, reauthorization, a refresh, a
 * failed refresh) drops the row at once; a change made by another instance sharing the database is
 * seen within this long (docs/decisions.md).
 */
export const CONNECTION_IN_USE_TTL_MS = 1_000;
const MAX_CONNECTIONS_IN_USE = 10_000;

export interface ConnectionTokensDeps {
  sql: Sql;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  accessTokens: Pick<AccessTokens, "token">;
  inUse: ConnectionsInUse;
}

interface ConnectionRow {
  id: string;
  status: string;
  params: unknown;
  metadata: unknown;
  refreshable: boolean;
  access_token_encrypted: string;
  expires_ms: number | null;
  scopes: string[];
}

// One statement per proxied request (a hot path: bench/proxy): the status, what fills the API base and the token.
const FIND_CONNECTION = `select id, status::text as status, params, metadata, refresh_token_encrypted is not null as refreshable,
  access_token_encrypted, extract(epoch from token_expires_at)::float8 * 1000 as expires_ms, scopes
  from connected_account where deployment_id = $1 and connector = $2 and account = $3`;

export const reauthRequired = (connector: string, account: string) =>
  new AppError(
    "REAUTH_REQUIRED",
    `The connection for account "${account}" of "${connector}" needs a new authorization: the provider refused to refresh its token. Send the user a new authorization URL (GET /api/v1/connector/service/${connector}/auth-url?account=…).`,
  );

export const connectionDisconnected = (connector: string, account: string) =>
  new AppError(
    "CONNECTION_DISCONNECTED",
    `The connection for account "${account}" of "${connector}" was disconnected and its tokens forgotten. Send the user a new authorization URL to connect again.`,
  );

/** A failure of the account's refresh that is not the provider refusing the grant (it did not answer, …). */
const refreshFailed = (connector: string) =>
  new AppError("PROVIDER_UNREACHABLE", `The ${connector} token endpoint did not give a new token; try again shortly.`);

/**
 * The connection rows the proxy reuses (CONNECTION_IN_USE_TTL_MS), built before anything that
 * changes a connection so each can drop what it changed (lifecycle.ts's onChange) without reaching
 * for a capability built later.
 */
export function createConnectionsInUse(clock: Clock) {
  const rows = createTtlCache<string, UsableConnection>({ ttlMs: CONNECTION_IN_USE_TTL_MS, maxEntries: MAX_CONNECTIONS_IN_USE, clock });
  // Bumped by every forget: a read that started before a change must not put its row back after it.
  let epoch = 0;
  return {
    rows,
    epoch: () => epoch,
    /** Drops what this instance remembers of a connection (it changed here). */
    forget(connectionId: string) {
      epoch++;
      rows.deleteWhere((connection) => connection.id === connectionId);
    },
  };
}

export type ConnectionsInUse = ReturnType<typeof createConnectionsInUse>;

export function createConnectionTokens(deps: ConnectionTokensDeps) {
  // Only rows with a usable token are kept: a missing, disconnected or lapsed connection is read
  // again each time, so one connected a moment ago works at once.
  const { rows: inUse, forget } = deps.inUse;

  /** The connection `connector`/`account` of the deployment; 404 for anything else (another deployment's too). */
  async function find(deploymentId: string, connector: string, account: string): Promise<UsableConnection> {
    const def = findConnector(connector);
    if (!def) throw unknownConnector(connector);
    const [row] = await deps.sql.query<ConnectionRow>(FIND_CONNECTION, [deploymentId, connector, account], "connection_for_use");
    if (!row) throw connectionNotFound(connector, account);
    if (row.status === "DISCONNECTED") throw connectionDisconnected(connector, account);
    if (row.status === "REAUTH_REQUIRED") throw reauthRequired(connector, account);
    const expiresAt = row.expires_ms === null ? null : new Date(Number(row.expires_ms));
    const fresh = !expiresAt || expiresAt.getTime() - deps.clock.now().getTime() > REFRESH_MARGIN_MS;
    return {
      id: row.id,
      def,
      account,
      params: row.params,
      metadata: row.metadata,
      // A refresh token, or a mode that renews without one (an app installation's key mints a new token).
      refreshable: authModeOf(def).renewable(row.refreshable),
      ...(fresh ? { stored: { sealed: row.access_token_encrypted, expiresAt, scopes: row.scopes } } : {}),
    };
  }

  /**
   * The connection's usable token: the stored one while it has more than five minutes left, else a
   * refreshed one (the account's refresh lock: concurrent callers refresh once and share the
   * result). `refresh` refreshes even a fresh token, when the account has a refresh token at all
   * (a token without one, such as a GitHub OAuth app's, cannot be renewed and is given as it is).
   */
  async function token(connection: UsableConnection, options: { refresh?: boolean } = {}): Promise<FreshToken> {
    const { stored } = connection;
    // Read with the status in one statement: no second read while it has time left.
    if (stored && !(options.refresh && connection.refreshable)) return { accessToken: (stored.opened ??= deps.box.open(stored.sealed)), expiresAt: stored.expiresAt, scopes: stored.scopes };
    // Whatever comes of it, the row changes: the next request reads it again.
    forget(connection.id);
    try {
      return await deps.accessTokens.token(connection.id, { forceRefresh: Boolean(options.refresh && connection.refreshable) });
    } catch (error) {
      if (error instanceof ReauthRequiredError) {
        throw error.status === "DISCONNECTED" ? connectionDisconnected(connection.def.name, connection.account) : reauthRequired(connection.def.name, connection.account);
      }
      deps.logger.warn({ err: error, connectionId: connection.id, connector: connection.def.name }, "token refresh failed");
      throw refreshFailed(connection.def.displayName);
    }
  }

  /** What findInUse answers without reading, when it can (the proxy's hot path: no promise). */
  function inUseNow(deploymentId: string, connector: string, account: string): UsableConnection | undefined {
    const cached = inUse.get(`${deploymentId}\n${connector}\n${account}`);
    const expiresAt = cached?.stored?.expiresAt;
    if (cached && (!expiresAt || expiresAt.getTime() - deps.clock.now().getTime() > REFRESH_MARGIN_MS)) return cached;
    return undefined;
  }

  /** The token read with the connection's row, opened once; undefined when `token` must be asked (nothing stored, or a refresh). */
  function storedToken(connection: UsableConnection): string | undefined {
    const { stored } = connection;
    return stored ? (stored.opened ??= deps.box.open(stored.sealed)) : undefined;
  }

  /**
   * `find` for the proxy: the row read within the last CONNECTION_IN_USE_TTL_MS when it held a
   * token with more than REFRESH_MARGIN_MS left (and still has), else read now.
   */
  async function findInUse(deploymentId: string, connector: string, account: string): Promise<UsableConnection> {
    const cached = inUseNow(deploymentId, connector, account);
    if (cached) return cached;
    const key = `${deploymentId}\n${connector}\n${account}`;
    const readAt = deps.clock.now().getTime();
    const since = deps.inUse.epoch();
    const connection = await find(deploymentId, connector, account);
    if (connection.stored && since === deps.inUse.epoch()) inUse.set(key, connection, readAt);
    return connection;
  }

  return {
    find,
    findInUse,
    inUse: inUseNow,
    storedToken,
    /** Drops what this instance remembers of a connection (it changed here: connections/lifecycle.ts calls it). */
    forget,
    token,
    /** GET …/token: the token with its expiry and scopes; each read logged (key prefix and connection, never the token). */
    async read(caller: { deploymentId: string; apiKeyPrefix: string }, connector: string, account: string, options: { refresh?: boolean }) {
      const connection = await find(caller.deploymentId, connector, account);
      const fresh = await token(connection, options);
      deps.logger.info(
        { apiKeyPrefix: caller.apiKeyPrefix, connectionId: connection.id, connector, refresh: Boolean(options.refresh) },
        "connection token read",
      );
      return { accessToken: fresh.accessToken, tokenType: authModeOf(connection.def).tokenType, expiresAt: fresh.expiresAt?.toISOString() ?? null, scopes: fresh.scopes };
    },
  };
}

export type ConnectionTokens = ReturnType<typeof createConnectionTokens>;
