import type { ResultOf } from "@graphql-typed-document-node/core";
import { useQuery } from "urql";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { Empty, LoadError, Loading } from "../components/States.tsx";
import { useConfirmedMutation } from "../components/useConfirmedMutation.ts";
import { formatDate } from "../format.ts";
import { graphql } from "../generated/gql.ts";
import type { SectionProps } from "./types.ts";

const AccountsQuery = graphql(`
  query ConsoleConnectedAccounts($id: ID!) {
    deployment(id: $id) { id connectedAccounts { id connector account externalId status scopes createdAt lastRefreshedAt } }
  }
`);

const DisconnectMutation = graphql(`
  mutation ConsoleDisconnectAccount($id: ID!) {
    disconnectAccount(id: $id) { id status }
  }
`);

type Account = NonNullable<ResultOf<typeof AccountsQuery>["deployment"]>["connectedAccounts"][number];

const statusBadge: Record<string, { label: string; tone: string }> = {
  ACTIVE: { label: "Active", tone: "ok" },
  REAUTH_REQUIRED: { label: "Needs re-authorization", tone: "warn" },
  DISCONNECTED: { label: "Disconnected", tone: "grey" },
};

/** The end-user accounts connected through authorization URLs: status, and disconnect. */
export function ConnectedAccountsSection({ deploymentId, canManage }: SectionProps) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: AccountsQuery, variables: { id: deploymentId } });
  const accounts = data?.deployment?.connectedAccounts ?? [];
  const reload = () => refetch({ requestPolicy: "network-only" });
  const disconnection = useConfirmedMutation(DisconnectMutation, {
    variables: (account: Account) => ({ id: account.id }),
    success: (account) => `Disconnected ${account.account} from ${account.connector}.`,
    done: reload,
  });
  const target = disconnection.subject;

  return (
    <section className="panel" aria-labelledby="accounts-title">
      <h2 id="accounts-title">Connected accounts</h2>
      <p className="muted">End users who completed an authorization URL. Their tokens are stored encrypted and refreshed before they expire.</p>
      {error && !data && <LoadError error={error} retry={reload} />}
      {fetching && !data && <Loading what="Loading connected accounts" />}
      {data && accounts.length === 0 && (
        <Empty title="No connected accounts yet">Create an authorization URL under Connectors (or from your server) and complete it.</Empty>
      )}
      {accounts.length > 0 && (
        <table className="table" aria-label="Connected accounts">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Connector</th>
              <th scope="col">Provider id</th>
              <th scope="col">Status</th>
              <th scope="col">Connected</th>
              <th scope="col">Refreshed</th>
              {canManage && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {accounts.map((account) => {
              const badge = statusBadge[account.status] ?? { label: account.status, tone: "grey" };
              return (
                <tr key={account.id}>
                  <td data-label="Account">{account.account}</td>
                  <td data-label="Connector">{account.connector}</td>
                  <td data-label="Provider id">
                    <code>{account.externalId}</code>
                  </td>
                  <td data-label="Status">
                    <span className={`badge ${badge.tone}`}>{badge.label}</span>
                  </td>
                  <td data-label="Connected">{formatDate(account.createdAt)}</td>
                  <td data-label="Refreshed">{formatDate(account.lastRefreshedAt)}</td>
                  {canManage && (
                    <td className="row-actions">
                      {account.status !== "DISCONNECTED" && (
                        <button type="button" className="button small danger" onClick={() => disconnection.ask(account)}>
                          Disconnect
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <ConfirmDialog {...disconnection.dialog} title="Disconnect this account?" confirmLabel="Disconnect" danger>
        <p>
          Switchyard forgets {target?.account}'s {target?.connector} tokens and stops forwarding its events. A new authorization URL connects it
          again.
        </p>
      </ConfirmDialog>
    </section>
  );
}
