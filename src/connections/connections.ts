import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import { findConnector } from "../connectors/registry.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import type { Sql } from "../db/sql.ts";
import { AppError, badInput, connectionNotFound } from "../errors.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import { withLastEventAt } from "./lastEventAt.ts";
import { type Connection, connectionSelect, type ReadPollingHealth, subscriptionSelect, toConnection, watchedResourceSelect } from "./connection.ts";
import type { ConnectionFilter } from "./filter.ts";
import type { LifecycleEvents } from "./lifecycle.ts";
import type { Revoke } from "./revoke.ts";
import type { ConnectionStore } from "./store/index.ts";

/**
 * The deployment's connections as its operator uses them: listed (offset pages for REST, keyset
 * pages for GraphQL), read one at a time, and deleted. Every operation takes the deployment the
 * caller was authorized for (the API key's, or one the access guard checked), so another
 * deployment's connection is simply not found.
 */
export interface ConnectionsDeps {
  db: Db;
  /** Reads each connection's lastEventAt (lastEventAt.ts). */
  sql: Sql;
  store: Pick<ConnectionStore, "disconnect">;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  revoke: Revoke;
  lifecycle: Pick<LifecycleEvents, "emit">;
  /**
   * Deletes the connection's provider subscriptions (at the provider, then here) while its token
   * still works; called before the tokens are forgotten.
   */
  releaseSubscriptions: (connectedAccountId: string) => Promise<void>;
  /** Each connection's polling health (src/polling/health.ts). */
  pollingHealth: ReadPollingHealth;
}

/** Which connection: by connector and account (REST), or by id (GraphQL's disconnectAccount). */
export type ConnectionKey = { connector: string; account: string } | { id: string };

export const CONNECTIONS_MAX_PAGE = 100;

const liveSubscriptions = {
  providerSubscriptions: { where: { status: { not: "DELETED" } }, select: subscriptionSelect, orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
  watchedResources: { select: watchedResourceSelect, orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
} as const satisfies Prisma.ConnectedAccountSelect;

/** Prisma `select` for a Connection: its row and its live (not DELETED) provider subscriptions. */
export const withSubscriptions = { ...connectionSelect, ...liveSubscriptions } as const;

type LoadedConnection = Prisma.ConnectedAccountGetPayload<{ select: typeof withSubscriptions }> & { lastEventAt: Date | null };
const asConnection = (row: LoadedConnection, health: Map<string, Connection["polling"]>): Connection =>
  toConnection(row, row.providerSubscriptions, row.watchedResources, health.get(row.id) ?? null);

function where(deploymentId: string, filter: ConnectionFilter): Prisma.ConnectedAccountWhereInput {
  // Prisma passes `contains` to ILIKE as is: LIKE's own wildcards are escaped so they match themselves.
  const search = filter.search && { contains: filter.search.replace(/[\\%_]/g, (c) => `\\${c}`), mode: "insensitive" as const };
  return {
    deploymentId,
    ...(filter.connector ? { connector: filter.connector } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    ...(search ? { OR: [{ account: search }, { externalId: search }, { displayName: search }] } : {}),
  };
}

const newestFirst = [{ createdAt: "desc" }, { id: "desc" }] satisfies Prisma.ConnectedAccountOrderByWithRelationInput[];

export function encodeConnectionCursor(createdAt: Date, id: string): string {
  return Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString("base64url");
}

function decodeConnectionCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (typeof createdAt === "string" && typeof id === "string" && !Number.isNaN(Date.parse(createdAt))) return { createdAt: new Date(createdAt), id };
  } catch {
    // one message for every malformed cursor, below
  }
  throw badInput("after: not a cursor of this list (use pageInfo.endCursor)", [{ field: "after", message: "is not a valid cursor" }]);
}

export function createConnections(deps: ConnectionsDeps) {
  const asConnections = async (rows: LoadedConnection[]) => {
    const health = await deps.pollingHealth(rows.map((row) => row.id));
    return rows.map((row) => asConnection(row, health));
  };
  const one = async (row: LoadedConnection) => (await asConnections([row]))[0];

  const find = async (deploymentId: string, key: ConnectionKey): Promise<LoadedConnection | null> => {
    const row = await deps.db.connectedAccount.findFirst({
      where: "id" in key ? { deploymentId, id: key.id } : { deploymentId, connector: key.connector, account: key.account },
      select: withSubscriptions,
    });
    return row && (await withLastEventAt(deps.sql, [row]))[0];
  };

  const notFound = (key: ConnectionKey) =>
    "id" in key ? new AppError("CONNECTION_NOT_FOUND", `There is no connection ${key.id} in this deployment.`) : connectionNotFound(key.connector, key.account);

  /**
   * Status DISCONNECTED, tokens forgotten (the sealed columns overwritten), the grant revoked at the
   * provider where the connector declares how, its provider subscriptions deleted first, then
   * `switchyard.connection_deleted`. Only the caller whose UPDATE moved the row revokes and emits:
   * two deletions at once do it once.
   * Deleting a deleted connection changes nothing. Returns the connection as it is now, and
   * whether this call disconnected it.
   */
  async function disconnect(deploymentId: string, key: ConnectionKey): Promise<{ connection: Connection; disconnected: boolean }> {
    const row = await find(deploymentId, key);
    if (!row) throw notFound(key);
    if (row.status === "DISCONNECTED") return { connection: await one(row), disconnected: false };

    await deps.releaseSubscriptions(row.id);
    // The old sealed tokens come back from the statement, to be revoked after its commit.
    const old = await deps.store.disconnect(row.id, deps.clock.now());
    const now = await find(deploymentId, { id: row.id });
    const connection = await one(now ?? row);
    if (!old) return { connection, disconnected: false };

    deps.logger.info({ deploymentId, connector: row.connector, connectedAccountId: row.id }, "connection deleted");
    const def = findConnector(row.connector);
    if (def) {
      const open = (sealed: string | null) => (sealed ? deps.box.open(sealed) : null);
      await deps.revoke(def, {
        deploymentId,
        connectedAccountId: row.id,
        accessToken: open(old.access_token_encrypted),
        refreshToken: open(old.refresh_token_encrypted),
      });
    }
    await deps.lifecycle.emit(deploymentId, "connection_deleted", connection);
    return { connection, disconnected: true };
  }

  return {
    /** One page by offset, newest first, and how many match (REST: `/api/v1/connections`). */
    async list(deploymentId: string, filter: ConnectionFilter, offset: number, limit: number): Promise<{ total: number; connections: Connection[] }> {
      const [total, rows] = await Promise.all([
        deps.db.connectedAccount.count({ where: where(deploymentId, filter) }),
        deps.db.connectedAccount.findMany({ where: where(deploymentId, filter), select: withSubscriptions, orderBy: newestFirst, skip: offset, take: limit }),
      ]);
      return { total, connections: await asConnections(await withLastEventAt(deps.sql, rows)) };
    },

    /**
     * One keyset page, newest first by (createdAt, id): page 100 costs what page 1 does (GraphQL
     * `Deployment.connections`). Rows are whole connected_account rows for the prisma plugin.
     */
    async page(deploymentId: string, filter: ConnectionFilter, first: number, after: string | null) {
      if (!Number.isInteger(first) || first < 1 || first > CONNECTIONS_MAX_PAGE) {
        throw badInput(`first: must be an integer from 1 to ${CONNECTIONS_MAX_PAGE}`, [{ field: "first", message: `must be from 1 to ${CONNECTIONS_MAX_PAGE}` }]);
      }
      const cursor = after ? decodeConnectionCursor(after) : undefined;
      const keyset: Prisma.ConnectedAccountWhereInput = cursor
        ? { OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }] }
        : {};
      const rows = await deps.db.connectedAccount.findMany({ where: { AND: [where(deploymentId, filter), keyset] }, orderBy: newestFirst, take: first + 1 });
      const nodes = rows.slice(0, first);
      return {
        edges: nodes.map((node) => ({ cursor: encodeConnectionCursor(node.createdAt, node.id), node })),
        hasNextPage: rows.length > first,
      };
    },

    /** One connection; CONNECTION_NOT_FOUND when this deployment has none by that key. */
    async get(deploymentId: string, key: ConnectionKey): Promise<Connection> {
      const row = await find(deploymentId, key);
      if (!row) throw notFound(key);
      return one(row);
    },

    disconnect,
  };
}

export type Connections = ReturnType<typeof createConnections>;
