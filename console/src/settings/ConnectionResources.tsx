import { type FormEvent, useCallback, useId, useState } from "react";
import { useMutation, useQuery } from "urql";
import { Field } from "../components/Field.tsx";
import { useToast } from "../components/Toasts.tsx";
import { formatDate } from "../format.ts";
import { graphql } from "../generated/gql.ts";
import type { ProviderSubscriptionStatus } from "../generated/graphql.ts";

const ResourcesQuery = graphql(`
  query ConsoleConnectionResources($id: ID!, $search: String!, $connector: String!) {
    connector(name: $connector) { name resourceParams { name description example optional } }
    deployment(id: $id) {
      id
      connections(filter: { search: $search, connector: $connector }, first: 20) {
        nodes { id watching resources { id params createdAt subscription { id status lastError } } }
      }
    }
  }
`);

const WatchMutation = graphql(`
  mutation ConsoleWatchResource($connectionId: ID!, $params: JSON!) {
    watchResource(connectionId: $connectionId, params: $params) { id params }
  }
`);

const UnwatchMutation = graphql(`
  mutation ConsoleUnwatchResource($id: ID!) {
    unwatchResource(id: $id)
  }
`);

/** The subscription's status in words (never colour alone). */
const statusBadge: Record<ProviderSubscriptionStatus, { label: string; tone: string }> = {
  PENDING: { label: "Pending", tone: "warn" },
  ACTIVE: { label: "Active", tone: "ok" },
  FAILED: { label: "Failed", tone: "bad" },
  DELETED: { label: "Deleted", tone: "grey" },
};

const watchingText = {
  RESOURCES: "the resources below, each with its own subscription at the provider",
  NONE: "nothing: its subscriptions need a resource and it names none",
  ACCOUNT: "the whole account",
} as const;

const paramsText = (params: unknown) =>
  Object.entries((params ?? {}) as Record<string, string>)
    .map(([name, value]) => `${name} ${value}`)
    .join(", ");

/**
 * What a connection watches (a GitLab project, a Trello board), each resource with its
 * subscription's status; owners and admins add and remove them. Nothing for connectors whose
 * subscriptions watch no resource.
 */
export function ConnectionResources({ deploymentId, connection, canManage }: { deploymentId: string; connection: { id: string; connector: string; account: string; status: string }; canManage: boolean }) {
  const [{ data, error }, refetch] = useQuery({ query: ResourcesQuery, variables: { id: deploymentId, search: connection.account, connector: connection.connector } });
  const reload = useCallback(() => refetch({ requestPolicy: "network-only" }), [refetch]);
  const [watching, watch] = useMutation(WatchMutation);
  const [unwatching, unwatch] = useMutation(UnwatchMutation);
  const toast = useToast();
  const titleId = useId();
  const [values, setValues] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string>();
  const params = data?.connector?.resourceParams ?? [];
  const detail = data?.deployment?.connections.nodes.find((node) => node.id === connection.id);
  if (params.length === 0) return null;

  const onAdd = async (event: FormEvent) => {
    event.preventDefault();
    const result = await watch({ connectionId: connection.id, params: values });
    if (result.error) {
      setProblem(result.error.graphQLErrors[0]?.message ?? "Could not watch it. Try again.");
      return;
    }
    setProblem(undefined);
    setValues({});
    toast.success(`${connection.account} now watches ${paramsText(result.data?.watchResource.params)}.`);
    reload();
  };
  const onRemove = async (resource: { id: string; params: unknown }) => {
    const result = await unwatch({ id: resource.id });
    if (result.error) return toast.error(result.error.graphQLErrors[0]?.message ?? "Could not stop watching it. Try again.");
    toast.success(`${connection.account} no longer watches ${paramsText(resource.params)}; its subscription is deleted at the provider.`);
    reload();
  };

  return (
    <>
      <h3 id={titleId}>Watched resources</h3>
      {error && <p role="alert">Could not load the resources.</p>}
      {detail && <p>Watching {watchingText[detail.watching]}.</p>}
      {detail && detail.resources.length > 0 && (
        <table className="table" aria-labelledby={titleId}>
          <thead>
            <tr>
              <th scope="col">Resource</th>
              <th scope="col">Subscription</th>
              <th scope="col">Added</th>
              {canManage && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {detail.resources.map((resource) => {
              const badge = resource.subscription ? statusBadge[resource.subscription.status] : { label: "Not subscribed yet", tone: "grey" };
              return (
                <tr key={resource.id}>
                  <td data-label="Resource">
                    <code>{paramsText(resource.params)}</code>
                  </td>
                  <td data-label="Subscription">
                    <span className={`badge ${badge.tone}`}>{badge.label}</span>
                    {resource.subscription?.lastError && <span className="muted"> {resource.subscription.lastError}</span>}
                  </td>
                  <td data-label="Added">{formatDate(resource.createdAt)}</td>
                  {canManage && (
                    <td className="row-actions">
                      <button type="button" className="button small" disabled={unwatching.fetching} onClick={() => onRemove(resource)}>
                        Remove<span className="visually-hidden"> {paramsText(resource.params)}</span>
                      </button>
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {canManage && connection.status !== "DISCONNECTED" && (
        <form onSubmit={onAdd} aria-label={`Watch a resource with ${connection.account}`}>
          {params.map((param) => (
            <Field
              key={param.name}
              label={param.name}
              hint={`${param.description} (e.g. ${param.example})`}
              required
              value={values[param.name] ?? ""}
              error={problem}
              onChange={(e) => setValues({ ...values, [param.name]: e.target.value })}
            />
          ))}
          <button type="submit" className="button small" disabled={watching.fetching}>
            Watch
          </button>
        </form>
      )}
    </>
  );
}
