import type { ResultOf } from "@graphql-typed-document-node/core";
import { useCallback, useState } from "react";
import { useMutation, useQuery } from "urql";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { Empty, LoadError, Loading } from "../components/States.tsx";
import { useToast } from "../components/Toasts.tsx";
import { useConfirmedMutation } from "../components/useConfirmedMutation.ts";
import { formatDate, formatFromNow, formatRelative } from "../format.ts";
import { Link } from "../router.tsx";
import { graphql } from "../generated/gql.ts";
import type { AccountStatus } from "../generated/graphql.ts";
import { ConnectionResources } from "./ConnectionResources.tsx";
import { ConnectionSubscriptions } from "./ConnectionSubscriptions.tsx";
import { type CatalogConnector, keyed, useConnectorCatalog } from "./useConnectorCatalog.ts";
import type { SectionProps } from "./types.ts";

const ConnectionsQuery = graphql(`
  query ConsoleConnections($id: ID!, $filter: ConnectionFilter, $after: String) {
    deployment(id: $id) {
      id
      connections(filter: $filter, first: 50, after: $after) {
        nodes { id connector account externalId displayName status scopes createdAt lastRefreshedAt lastEventAt }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`);

const ConnectionDetailQuery = graphql(`
  query ConsoleConnectionDetail($id: ID!, $search: String!) {
    deployment(id: $id) {
      id
      connections(filter: { search: $search }, first: 20) {
        nodes {
          id tokenExpiresAt params metadata recentEvents(first: 10) { id type receivedAt deliveries { status attempts lastStatusCode } }
          subscriptions { id resource events status providerId expiresAt lastRenewedAt lastError nextAttemptAt }
          polling { lastPolledAt lastSucceededAt lastError consecutiveFailures }
        }
      }
    }
  }
`);

const DisconnectMutation = graphql(`
  mutation ConsoleDisconnectAccount($id: ID!) {
    disconnectAccount(id: $id) { id status }
  }
`);

const ReauthorizationMutation = graphql(`
  mutation ConsoleReauthorizationUrl($id: ID!) {
    createReauthorizationUrl(id: $id) { authUrl expiresAt }
  }
`);

type Connection = NonNullable<ResultOf<typeof ConnectionsQuery>["deployment"]>["connections"]["nodes"][number];

const statusBadge: Record<string, { label: string; tone: string }> = {
  ACTIVE: { label: "Active", tone: "ok" },
  REAUTH_REQUIRED: { label: "Needs re-authorization", tone: "warn" },
  DISCONNECTED: { label: "Disconnected", tone: "grey" },
};

/** The end users' connections: search, status, a detail with subscriptions and recent events, a new authorization URL, Disconnect. */
export function ConnectedAccountsSection({ deploymentId, canManage }: SectionProps) {
  const [search, setSearch] = useState("");
  const [status, setStatus] = useState<AccountStatus | "">("");
  const [open, setOpen] = useState<string | null>(null);
  const filter = { ...(search.trim() ? { search: search.trim() } : {}), ...(status ? { status } : {}) };
  const [{ data, fetching, error }, refetch] = useQuery({ query: ConnectionsQuery, variables: { id: deploymentId, filter } });
  const connections = data?.deployment?.connections.nodes ?? [];
  const reload = () => refetch({ requestPolicy: "network-only" });
  const disconnection = useConfirmedMutation(DisconnectMutation, {
    variables: (connection: Connection) => ({ id: connection.id }),
    success: (connection) => `Disconnected ${connection.account} from ${connection.connector}.`,
    done: reload,
  });
  const target = disconnection.subject;
  const catalog = useConnectorCatalog();

  return (
    <section className="panel" aria-labelledby="connections-title">
      <h2 id="connections-title">Connections</h2>
      <p className="muted">End users who completed an authorization URL. Their tokens are stored encrypted, refreshed before they expire, and never shown.</p>
      <div className="catalog-filters">
        <div className="field">
          <label htmlFor="connections-search">Search connections</label>
          <input id="connections-search" type="search" value={search} placeholder="Account, provider id or name" onChange={(e) => setSearch(e.target.value)} />
        </div>
        <div className="field narrow">
          <label htmlFor="connections-status">Status</label>
          <select id="connections-status" value={status} onChange={(e) => setStatus(e.target.value as AccountStatus | "")}>
            <option value="">Any</option>
            <option value="ACTIVE">Active</option>
            <option value="REAUTH_REQUIRED">Needs re-authorization</option>
            <option value="DISCONNECTED">Disconnected</option>
          </select>
        </div>
      </div>
      {error && !data && <LoadError error={error} retry={reload} />}
      {fetching && !data && <Loading what="Loading connections" />}
      {data && connections.length === 0 && (
        <Empty title={search || status ? "No connection matches" : "No connections yet"}>
          {search || status ? "Try another search or status." : "Create an authorization URL under Connectors (or from your server) and complete it."}
        </Empty>
      )}
      {connections.length > 0 && (
        <table className="table" aria-label="Connections">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Connector</th>
              <th scope="col">Provider account</th>
              <th scope="col">Status</th>
              <th scope="col">Connected</th>
              <th scope="col">Last event</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {connections.map((connection) => {
              const badge = statusBadge[connection.status] ?? { label: connection.status, tone: "grey" };
              const expanded = open === connection.id;
              return [
                <tr key={connection.id}>
                  <td data-label="Account">{connection.account}</td>
                  <td data-label="Connector">{connection.connector}</td>
                  <td data-label="Provider account">
                    {connection.displayName ?? ""} <code>{connection.externalId}</code>
                  </td>
                  <td data-label="Status">
                    <span className={`badge ${badge.tone}`}>{badge.label}</span>
                  </td>
                  <td data-label="Connected">{formatDate(connection.createdAt)}</td>
                  <td data-label="Last event">{formatDate(connection.lastEventAt)}</td>
                  <td className="row-actions">
                    <button type="button" className="button small" aria-expanded={expanded} onClick={() => setOpen(expanded ? null : connection.id)}>
                      {expanded ? "Hide details" : "Details"}
                      <span className="visually-hidden"> of {connection.account}</span>
                    </button>
                    {canManage && connection.status !== "DISCONNECTED" && (
                      <button type="button" className="button small danger" onClick={() => disconnection.ask(connection)}>
                        Disconnect
                      </button>
                    )}
                  </td>
                </tr>,
                expanded && (
                  <tr key={`${connection.id}-detail`}>
                    <td colSpan={7}>
                      <ConnectionDetail deploymentId={deploymentId} connection={connection} canManage={canManage} />
                    </td>
                  </tr>
                ),
              ];
            })}
          </tbody>
        </table>
      )}
      <ConfirmDialog {...disconnection.dialog} title="Disconnect this connection?" confirmLabel="Disconnect" danger>
        <p>{target && disconnectConsequences(target, catalog.connectors.find((c) => c.name === target.connector))}</p>
      </ConfirmDialog>
    </section>
  );
}

/** What disconnecting does, for this connector: whether the grant is revoked at the provider too, or only forgotten here. */
function disconnectConsequences(connection: Connection, connector: CatalogConnector | undefined): string {
  const provider = connector?.displayName ?? connection.connector;
  const forgets = `Switchyard forgets ${connection.account}'s ${provider} credentials`;
  const after = "and stops forwarding its events. A new authorization URL connects it again.";
  // Until the catalog has loaded, nothing is said about the provider's side.
  if (!connector) return `${forgets} ${after}`;
  if (connector.revokesGrantOnDelete) return `${forgets}, revokes the grant at ${provider}, ${after}`;
  if (keyed(connector)) return `${forgets} ${after} The credentials stay valid at ${provider}: the end user can revoke them there.`;
  if (connector.authMode === "APP_INSTALLATION") return `${forgets} ${after} The app stays installed: the end user can uninstall it in their ${provider} settings.`;
  return `${forgets} ${after} ${provider} offers no way to revoke the grant from here: the end user can remove the app in their ${provider} settings.`;
}

function ConnectionDetail({ deploymentId, connection, canManage }: { deploymentId: string; connection: Connection; canManage: boolean }) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: ConnectionDetailQuery, variables: { id: deploymentId, search: connection.account } });
  const reload = useCallback(() => refetch({ requestPolicy: "network-only" }), [refetch]);
  const detail = data?.deployment?.connections.nodes.find((node) => node.id === connection.id);
  const [reauth, createUrl] = useMutation(ReauthorizationMutation);
  const toast = useToast();
  const url = reauth.data?.createReauthorizationUrl;
  const newUrl = async () => {
    const result = await createUrl({ id: connection.id });
    if (result.error) toast.error(result.error.graphQLErrors[0]?.message ?? "Could not create an authorization URL.");
  };

  return (
    <div className="connection-detail" aria-label={`Details of ${connection.account}`} role="region">
      {/* Sections, one component each: a new one (the resources a connection watches) drops in between. */}
      <section className="detail-section" aria-label={`Connection ${connection.account}`}>
        <h3>Connection</h3>
        <dl className="facts-list">
          <dt>Connection ID</dt>
          <dd>
            <code>{connection.id}</code> <CopyButton value={connection.id} label="Copy connection ID" />
          </dd>
          <dt>Status</dt>
          <dd>
            <span className={`badge ${(statusBadge[connection.status] ?? { tone: "grey" }).tone}`}>{(statusBadge[connection.status] ?? { label: connection.status }).label}</span>
          </dd>
          <dt>At the provider</dt>
          <dd>
            {connection.displayName ?? "—"} <span className="muted">(id {connection.externalId})</span>
          </dd>
          <dt>Scopes</dt>
          <dd>{connection.scopes.length ? connection.scopes.join(", ") : "none"}</dd>
          <dt>Token expires</dt>
          <dd>{detail ? (detail.tokenExpiresAt ? `${formatFromNow(detail.tokenExpiresAt)} (${formatDate(detail.tokenExpiresAt)})` : "does not expire") : "…"}</dd>
          <dt>Token refreshed</dt>
          <dd>{connection.lastRefreshedAt ? formatDate(connection.lastRefreshedAt) : "never"}</dd>
          {detail && <KeyValues title="Parameters" values={detail.params} />}
          {detail && <KeyValues title="Provider details" values={detail.metadata} />}
        </dl>
      </section>
      {detail?.polling && detail.polling.consecutiveFailures > 0 && (
        <p className="polling-status" role="status">
          Polling failing: {detail.polling.consecutiveFailures} {detail.polling.consecutiveFailures === 1 ? "poll" : "polls"} in a row, last at{" "}
          {formatDate(detail.polling.lastPolledAt)} ({detail.polling.lastError}); last succeeded {formatDate(detail.polling.lastSucceededAt)}.
        </p>
      )}
      {connection.status === "REAUTH_REQUIRED" && canManage && (
        <div className="reauthorize">
          <p>The provider refused to refresh this connection: send {connection.account} a new authorization URL.</p>
          {url ? (
            <p>
              <code>{url.authUrl}</code> <CopyButton value={url.authUrl} label="Copy authorization URL" />
            </p>
          ) : (
            <button type="button" className="button small" disabled={reauth.fetching} onClick={newUrl}>
              Create a new authorization URL
            </button>
          )}
        </div>
      )}
      <ConnectionResources deploymentId={deploymentId} connection={connection} canManage={canManage} />
      {detail && <ConnectionSubscriptions account={connection.account} subscriptions={detail.subscriptions} canManage={canManage} reload={reload} />}
      <section className="detail-section" aria-label={`Recent events of ${connection.account} (section)`}>
        <h3>Recent events</h3>
        {error && <p role="alert">Could not load the subscriptions and events.</p>}
        {fetching && !data && <p>Loading events…</p>}
        {detail && detail.recentEvents.length === 0 && <p className="muted">No events yet.</p>}
        {detail && detail.recentEvents.length > 0 && (
          <ul className="recent-events" aria-label={`Recent events of ${connection.account}`}>
            {detail.recentEvents.map((event) => {
              const delivery = event.deliveries.at(-1);
              const badge = delivery ? (deliveryBadge[delivery.status] ?? { label: delivery.status, tone: "grey" }) : undefined;
              return (
                <li key={event.id}>
                  <code>{event.type}</code>
                  <time dateTime={event.receivedAt} title={formatDate(event.receivedAt)}>
                    {formatRelative(event.receivedAt)}
                  </time>
                  {badge ? <span className={`badge ${badge.tone}`}>{badge.label}</span> : <span className="muted">not forwarded</span>}
                  <Link to={`/deployments/${deploymentId}/events?event=${encodeURIComponent(event.id)}`}>Open in Events</Link>
                </li>
              );
            })}
          </ul>
        )}
      </section>
    </div>
  );
}

const deliveryBadge: Record<string, { label: string; tone: string }> = {
  PENDING: { label: "Pending", tone: "warn" },
  SUCCEEDED: { label: "Delivered", tone: "ok" },
  FAILED: { label: "Failed", tone: "bad" },
  CANCELLED: { label: "Cancelled", tone: "grey" },
};

/** A JSON object as name/value rows (not a raw dump); nested values are shown compactly. */
function KeyValues({ title, values }: { title: string; values: unknown }) {
  const entries = values && typeof values === "object" && !Array.isArray(values) ? Object.entries(values as Record<string, unknown>) : [];
  return (
    <>
      <dt>{title}</dt>
      <dd>
        {entries.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <ul className="key-values">
            {entries.map(([name, value]) => (
              <li key={name}>
                <span className="muted">{name}</span> {typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value)}
              </li>
            ))}
          </ul>
        )}
      </dd>
    </>
  );
}
