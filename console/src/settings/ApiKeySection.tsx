import { useId, useState } from "react";
import { useQuery } from "urql";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { LoadError, Loading } from "../components/States.tsx";
import { useConfirmedMutation } from "../components/useConfirmedMutation.ts";
import { formatDate, formatRelative } from "../format.ts";
import { graphql } from "../generated/gql.ts";
import { rememberApiKey } from "../sessionKeys.ts";
import type { SectionProps } from "./types.ts";

const ApiKeyQuery = graphql(`
  query ConsoleApiKey($id: ID!) {
    deployment(id: $id) { id apiKey { id prefix createdAt lastUsedAt expiresAt } }
  }
`);

const GenerateApiKeyMutation = graphql(`
  mutation ConsoleGenerateApiKey($deploymentId: ID!, $gracePeriodSeconds: Int) {
    generateApiKey(deploymentId: $deploymentId, gracePeriodSeconds: $gracePeriodSeconds) {
      apiKey
      key { id prefix createdAt lastUsedAt expiresAt }
    }
  }
`);

const gracePeriods = [
  { seconds: 0, label: "Immediately" },
  { seconds: 3600, label: "In 1 hour" },
  { seconds: 86400, label: "In 24 hours" },
  { seconds: 7 * 86400, label: "In 7 days" },
];

/** The deployment's API key: generated here, shown once, then only its prefix and dates. */
export function ApiKeySection({ deploymentId, canManage }: SectionProps) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: ApiKeyQuery, variables: { id: deploymentId } });
  const [newKey, setNewKey] = useState<string>();
  const [grace, setGrace] = useState(0);
  const graceId = useId();
  const key = data?.deployment?.apiKey;
  const generation = useConfirmedMutation(GenerateApiKeyMutation, {
    variables: () => ({ deploymentId, gracePeriodSeconds: grace }),
    done: (result) => {
      // Kept in this component's memory only: leaving the page forgets it, as promised.
      const apiKey = result.generateApiKey.apiKey;
      setNewKey(apiKey);
      if (apiKey) rememberApiKey(deploymentId, apiKey);
      refetch({ requestPolicy: "network-only" });
    },
  });

  return (
    <section className="panel" aria-labelledby="api-key-title">
      <h2 id="api-key-title">API Key</h2>
      <p className="muted">
        Your server sends it in the <code>x-api-key</code> header to <code>GET /api/data</code> and to the authorization-URL endpoint. One key is
        active per deployment.
      </p>
      {error && !data && <LoadError error={error} retry={() => refetch({ requestPolicy: "network-only" })} />}
      {fetching && !data && <Loading />}
      {newKey && (
        <div className="secret-once" role="status">
          <strong>Copy your new API key now. It will not be shown again.</strong>
          <div className="secret-line">
            <code data-testid="new-api-key">{newKey}</code>
            <CopyButton value={newKey} />
          </div>
          <button type="button" className="button small" onClick={() => setNewKey(undefined)}>
            I have stored it
          </button>
        </div>
      )}
      {data && (
        <>
          {key ? (
            <dl className="facts">
              <div>
                <dt>Key</dt>
                <dd>
                  <code data-testid="api-key-prefix">{key.prefix}…</code>
                </dd>
              </div>
              <div>
                <dt>Created</dt>
                <dd>{formatDate(key.createdAt)}</dd>
              </div>
              <div>
                <dt>Last used</dt>
                <dd>{formatRelative(key.lastUsedAt)}</dd>
              </div>
              {key.expiresAt && (
                <div>
                  <dt>Expires</dt>
                  <dd>{formatDate(key.expiresAt)}</dd>
                </div>
              )}
            </dl>
          ) : (
            <p className="empty-line">This deployment has no API key yet.</p>
          )}
          <div className="actions">
            <button
              type="button"
              className="button primary"
              disabled={!canManage || generation.busy}
              onClick={() => (key ? generation.ask() : void generation.run())}
            >
              {generation.busy ? "Generating…" : key ? "Generate a new key" : "Generate API key"}
            </button>
            {!canManage && <span className="muted">Only owners and admins can generate keys.</span>}
          </div>
        </>
      )}
      <ConfirmDialog {...generation.dialog} title="Replace the API key?" confirmLabel="Generate new key" danger>
        <p>
          The current key (<code>{key?.prefix}…</code>) stops working. Servers using it will get <code>401 invalid_api_key</code> until they
          have the new one.
        </p>
        <div className="field">
          <label htmlFor={graceId}>Old key stops working</label>
          <select id={graceId} value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
            {gracePeriods.map((period) => (
              <option key={period.seconds} value={period.seconds}>
                {period.label}
              </option>
            ))}
          </select>
        </div>
      </ConfirmDialog>
    </section>
  );
}
