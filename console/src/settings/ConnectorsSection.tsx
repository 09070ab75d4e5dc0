import type { ResultOf } from "@graphql-typed-document-node/core";
import { type FormEvent, useState } from "react";
import { useMutation, useQuery } from "urql";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { Field } from "../components/Field.tsx";
import { Empty, LoadError, Loading } from "../components/States.tsx";
import { useToast } from "../components/Toasts.tsx";
import { useConfirmedMutation } from "../components/useConfirmedMutation.ts";
import { describeError, fieldErrors } from "../errors.ts";
import { formatDate } from "../format.ts";
import { graphql } from "../generated/gql.ts";
import { recentApiKey } from "../sessionKeys.ts";
import type { SectionProps } from "./types.ts";
import { categoryLabel, iconSource, matchesQuery } from "./useConnectorCatalog.ts";

const ConnectorsQuery = graphql(`
  query ConsoleConnectors($id: ID!) {
    connectors { name displayName category description icon authMode scopes serviceCredentialsConfigured webhookUrlTemplate sendsVerificationToken docs triggers { name displayName } }
    deployment(id: $id) { id connectorCredentials { connector clientId clientSecretSet webhookSecretSet updatedAt } }
  }
`);

const SetCredentialsMutation = graphql(`
  mutation ConsoleSetConnectorCredentials($deploymentId: ID!, $connector: String!, $input: ConnectorCredentialsInput!) {
    setConnectorCredentials(deploymentId: $deploymentId, connector: $connector, input: $input) {
      connector clientId clientSecretSet webhookSecretSet updatedAt
    }
  }
`);

const VerificationTokensQuery = graphql(`
  query ConsoleWebhookVerificationTokens($id: ID!) {
    deployment(id: $id) { id webhookVerificationTokens { id connector token receivedAt confirmedAt inForce } }
  }
`);

const ConfirmVerificationTokenMutation = graphql(`
  mutation ConsoleConfirmWebhookVerificationToken($id: ID!) {
    confirmWebhookVerificationToken(id: $id) { id confirmedAt inForce }
  }
`);

const DiscardVerificationTokenMutation = graphql(`
  mutation ConsoleDiscardWebhookVerificationToken($deploymentId: ID!, $connector: String!) {
    discardWebhookVerificationToken(deploymentId: $deploymentId, connector: $connector)
  }
`);

const DeleteCredentialsMutation = graphql(`
  mutation ConsoleDeleteConnectorCredentials($deploymentId: ID!, $connector: String!) {
    deleteConnectorCredentials(deploymentId: $deploymentId, connector: $connector)
  }
`);

type ConnectorsResult = ResultOf<typeof ConnectorsQuery>;
type Connector = ConnectorsResult["connectors"][number];
type Credentials = NonNullable<ConnectorsResult["deployment"]>["connectorCredentials"][number];

/** The service-wide variables that give a connector the service's own OAuth app. */
const serviceVariables = (connector: string) => {
  const prefix = `CONNECTOR_${connector.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_`;
  return [`${prefix}CLIENT_ID`, `${prefix}CLIENT_SECRET`];
};

/** Whether end users can connect, and through whose OAuth app. */
/** How an end user's account is authorized, in words. */
const AUTH_MODE_LABEL: Record<Connector["authMode"], string> = { OAUTH2: "OAuth", API_KEY: "API key", BASIC: "HTTP Basic", APP_INSTALLATION: "app installation", NONE: "no sign-in" };
const keyed = (connector: Pick<Connector, "authMode">) => connector.authMode === "API_KEY" || connector.authMode === "BASIC";

function SetupBadge({ connector, credentials }: { connector: Connector; credentials?: Credentials }) {
  // End users bring their own API key or password: nothing to set up.
  if (keyed(connector)) return <span className="badge ok">Ready</span>;
  if (credentials) return <span className="badge ok">Your OAuth app</span>;
  if (connector.serviceCredentialsConfigured) return <span className="badge ok">Ready</span>;
  return <span className="badge warn">Not set up</span>;
}

/** The connector catalog for this deployment: whose OAuth app, the webhook URL, a test authorization URL. */
export function ConnectorsSection({ deploymentId, canManage }: SectionProps) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: ConnectorsQuery, variables: { id: deploymentId } });
  const [open, setOpen] = useState<string>();
  const [query, setQuery] = useState("");
  const [category, setCategory] = useState("");
  const reload = () => refetch({ requestPolicy: "network-only" });
  const categories = [...new Set((data?.connectors ?? []).map((c) => c.category))].sort();
  const shown = (data?.connectors ?? []).filter(
    (c) => (!category || c.category === category) && matchesQuery(query, c.displayName, c.name, c.category, c.description),
  );
  return (
    <section className="panel" aria-labelledby="connectors-title">
      <h2 id="connectors-title">Connectors</h2>
      <p className="muted">
        The third-party services your end users can connect. A connector is <strong>ready</strong> when the Switchyard service has its own OAuth app
        for it; set your own client ID and secret to show your name on the provider's consent screen (the extra consent page is then skipped), or to
        use a connector the service has not set up.
      </p>
      {error && !data && <LoadError error={error} retry={reload} />}
      {fetching && !data && <Loading what="Loading the connector catalog" />}
      {data && data.connectors.length === 0 && <Empty title="No connectors are installed" />}
      {data && data.connectors.length > 0 && (
        <div className="catalog-filters">
          <div className="field">
            <label htmlFor="connector-search">Search connectors</label>
            <input id="connector-search" type="search" value={query} placeholder="Name or description" autoComplete="off" onChange={(e) => setQuery(e.target.value)} />
          </div>
          <div className="field narrow">
            <label htmlFor="connector-category">Category</label>
            <select id="connector-category" value={category} onChange={(e) => setCategory(e.target.value)}>
              <option value="">All categories ({data.connectors.length})</option>
              {categories.map((c) => (
                <option key={c} value={c}>
                  {categoryLabel(c)} ({data.connectors.filter((x) => x.category === c).length})
                </option>
              ))}
            </select>
          </div>
        </div>
      )}
      {data && data.connectors.length > 0 && shown.length === 0 && <p className="muted">No connector matches.</p>}
      {data && (
        <ul className="rows" aria-label="Connector catalog">
          {shown.map((connector) => {
            const credentials = data.deployment?.connectorCredentials.find((c) => c.connector === connector.name);
            const expanded = open === connector.name;
            return (
              <li key={connector.name}>
                <button
                  type="button"
                  className="row-link row-button"
                  aria-expanded={expanded}
                  onClick={() => setOpen(expanded ? undefined : connector.name)}
                >
                  <span className="connector-title">
                    <img className="connector-icon" alt="" src={iconSource(connector.icon)} />
                    <span className="row-main">
                      <strong>{connector.displayName}</strong>
                      <span className="muted">
                        {categoryLabel(connector.category)} · {AUTH_MODE_LABEL[connector.authMode]} · {connector.triggers.length} trigger{connector.triggers.length === 1 ? "" : "s"}
                      </span>
                    </span>
                  </span>
                  <span className="row-side">
                    <SetupBadge connector={connector} credentials={credentials} />
                    <span className="chevron" aria-hidden="true">
                      {expanded ? "⌄" : "›"}
                    </span>
                  </span>
                </button>
                {expanded && (
                  <ConnectorDetails
                    deploymentId={deploymentId}
                    connector={connector}
                    credentials={credentials}
                    canManage={canManage}
                    onChanged={reload}
                  />
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function ConnectorDetails(props: { deploymentId: string; connector: Connector; credentials?: Credentials; canManage: boolean; onChanged(): void }) {
  const { connector } = props;
  const webhookUrl = connector.webhookUrlTemplate?.replace("{deploymentId}", props.deploymentId);
  return (
    <div className="connector-details">
      <p>{connector.description}</p>
      {keyed(connector) ? (
        <p className="muted">
          End users enter their own {connector.authMode === "BASIC" ? "credentials" : "API key"} on the connect page; {connector.displayName} checks them before they are kept (encrypted).
        </p>
      ) : (
        <p className="muted code-list">
          Scopes asked for: {connector.scopes.length ? connector.scopes.map((scope) => <code key={scope}>{scope}</code>) : "none"}
        </p>
      )}
      <div className="subsection">
        <h3>Webhook URL</h3>
        {webhookUrl ? (
          <>
            <p className="muted">Register this URL at {connector.displayName} so its events reach this deployment.</p>
            <div className="secret-line">
              <code data-testid={`webhook-url-${connector.name}`}>{webhookUrl}</code>
              <CopyButton value={webhookUrl} />
            </div>
            {connector.sendsVerificationToken && <VerificationToken deploymentId={props.deploymentId} connector={connector} canManage={props.canManage} />}
          </>
        ) : (
          <p className="muted">{connector.displayName} sends no events to Switchyard: it is offered for connecting accounts only.</p>
        )}
      </div>
      <OAuthApp {...props} />
      <TestAuthUrl deploymentId={props.deploymentId} connector={connector} />
      {connector.docs.length > 0 && (
        <p className="hint">
          Based on {connector.displayName}'s documentation:{" "}
          {connector.docs.map((url, i) => (
            <span key={url}>
              {i > 0 && " · "}
              <a href={url} target="_blank" rel="noreferrer">
                {new URL(url).pathname.replace(/\/$/, "").split("/").pop() || new URL(url).hostname}
              </a>
            </span>
          ))}
        </p>
      )}
    </div>
  );
}

function OAuthApp({ deploymentId, connector, credentials, canManage, onChanged }: { deploymentId: string; connector: Connector; credentials?: Credentials; canManage: boolean; onChanged(): void }) {
  const [editing, setEditing] = useState(false);
  const [values, setValues] = useState({ clientId: credentials?.clientId ?? "", clientSecret: "", webhookSecret: "" });
  const [saving, save] = useMutation(SetCredentialsMutation);
  const removal = useConfirmedMutation(DeleteCredentialsMutation, {
    variables: () => ({ deploymentId, connector: connector.name }),
    success: () => `${connector.displayName} uses the service's credentials again.`,
    done: onChanged,
  });
  const toast = useToast();
  const fields = fieldErrors(saving.error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const input = { clientId: values.clientId, clientSecret: values.clientSecret, ...(values.webhookSecret ? { webhookSecret: values.webhookSecret } : {}) };
    const result = await save({ deploymentId, connector: connector.name, input });
    if (result.data) {
      toast.success(`${connector.displayName} now uses your OAuth app.`);
      setEditing(false);
      setValues({ ...values, clientSecret: "", webhookSecret: "" });
      onChanged();
    }
  };
  return (
    <div className="subsection">
      <h3>OAuth app</h3>
      {credentials ? (
        <p>
          Your own app: client ID <code>{credentials.clientId}</code>, secret {credentials.clientSecretSet ? "set" : "not set"}, webhook secret{" "}
          {credentials.webhookSecretSet ? "set" : "not set"} (updated {formatDate(credentials.updatedAt)}).
        </p>
      ) : connector.serviceCredentialsConfigured ? (
        <p>Using the Switchyard service's credentials. End users see a consent page from this service before the provider's.</p>
      ) : (
        <p className="setup-fix" data-testid={`setup-fix-${connector.name}`}>
          Not set up: end users cannot connect {connector.displayName} yet. Use your own client ID and secret below, or set{" "}
          {serviceVariables(connector.name).map((v, i) => (
            <span key={v}>
              {i > 0 && " and "}
              <code>{v}</code>
            </span>
          ))}{" "}
          on the Switchyard service.
        </p>
      )}
      {canManage && !editing && (
        <div className="actions">
          <button type="button" className="button" onClick={() => setEditing(true)}>
            {credentials ? "Replace client ID and secret" : "Use your own client ID and secret"}
          </button>
          {credentials && (
            <button type="button" className="button" onClick={() => removal.ask()}>
              Use the service's credentials
            </button>
          )}
        </div>
      )}
      {editing && (
        <form onSubmit={submit} aria-label={`${connector.displayName} OAuth app`}>
          {saving.error && Object.keys(fields).length === 0 && (
            <div className="form-error" role="alert">
              {describeError(saving.error)}
            </div>
          )}
          <Field label="Client ID" required value={values.clientId} onChange={(e) => setValues({ ...values, clientId: e.target.value })} error={fields.clientId ?? fields["input.clientId"]} autoComplete="off" />
          <Field
            label="Client secret"
            type="password"
            required
            value={values.clientSecret}
            onChange={(e) => setValues({ ...values, clientSecret: e.target.value })}
            error={fields.clientSecret ?? fields["input.clientSecret"]}
            autoComplete="new-password"
            hint="Stored encrypted; never shown again."
          />
          <Field
            label="Webhook secret (optional)"
            type="password"
            value={values.webhookSecret}
            onChange={(e) => setValues({ ...values, webhookSecret: e.target.value })}
            error={fields.webhookSecret ?? fields["input.webhookSecret"]}
            autoComplete="new-password"
            hint="The secret the provider signs its webhooks with, if you registered the webhook URL in your own app."
          />
          <div className="actions">
            <button type="submit" className="button primary" disabled={saving.fetching || !values.clientId.trim() || !values.clientSecret}>
              {saving.fetching ? "Saving…" : "Save credentials"}
            </button>
            <button type="button" className="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <ConfirmDialog {...removal.dialog} title={`Use the service's credentials for ${connector.displayName}?`} confirmLabel="Use the service's credentials">
        <p>Your client ID and secret are deleted. New connections go through the Switchyard service's OAuth app.</p>
      </ConfirmDialog>
    </div>
  );
}

/**
 * The tokens the provider POSTs to the webhook URL when a subscription is created (Notion), to paste
 * back in its Verify step. Anyone who knows the URL can send one, so every one received is listed
 * with when it came, and none is used until an owner or admin confirms it. Secrets: only owners and
 * admins read them.
 */
function VerificationToken({ deploymentId, connector, canManage }: { deploymentId: string; connector: Connector; canManage: boolean }) {
  const [{ data, fetching }, refetch] = useQuery({ query: VerificationTokensQuery, variables: { id: deploymentId }, pause: !canManage, requestPolicy: "network-only" });
  const [discarding, discard] = useMutation(DiscardVerificationTokenMutation);
  const [confirming, confirm] = useMutation(ConfirmVerificationTokenMutation);
  const toast = useToast();
  if (!canManage) return <p className="muted">{connector.displayName} sends a verification token here when a subscription is created; an owner or admin can read and confirm it on this page.</p>;
  const tokens = data?.deployment?.webhookVerificationTokens.filter((t) => t.connector === connector.name) ?? [];
  const reload = () => refetch({ requestPolicy: "network-only" });
  const forget = async () => {
    const result = await discard({ deploymentId, connector: connector.name });
    if (result.error) return toast.error(describeError(result.error));
    toast.success(`The ${connector.displayName} verification tokens were discarded.`);
    reload();
  };
  const confirmToken = async (id: string) => {
    const result = await confirm({ id });
    if (result.error) return toast.error(describeError(result.error));
    toast.success(`The ${connector.displayName} verification token is confirmed.`);
    reload();
  };
  if (tokens.length === 0) {
    return (
      <p className="muted" data-testid={`verification-token-${connector.name}`}>
        No verification token received yet. Create the webhook subscription at {connector.displayName} with this URL: the token it sends appears here.{" "}
        <button type="button" className="button" onClick={reload} disabled={fetching}>
          Check again
        </button>
      </p>
    );
  }
  return (
    <div className="secret-once ok" role="status" data-testid={`verification-token-${connector.name}`}>
      <span>
        Verification tokens received, newest first. Paste the one {connector.displayName} sent in its Verify step; once {connector.displayName} accepts
        it, confirm it here. Anyone who knows this URL can send a token, so none is used until you confirm it, and events are refused until then.
      </span>
      <ul className="token-list" aria-label={`${connector.displayName} verification tokens`}>
        {tokens.map((held) => (
          <li key={held.id} data-testid={`verification-token-${held.id}`}>
            <span className="muted">Received {formatDate(held.receivedAt)}</span>
            <div className="secret-line">
              <code>{held.token}</code>
              <CopyButton value={held.token} />
            </div>
            {held.confirmedAt ? (
              <span className="muted">
                Confirmed {formatDate(held.confirmedAt)}.{" "}
                {held.inForce
                  ? `No webhook secret is configured for ${connector.displayName}, so its signed events are verified with this token.`
                  : `A webhook secret is configured for ${connector.displayName}: events are verified with that, not with this token. To use this token, save it as the webhook secret of your OAuth app.`}
              </span>
            ) : (
              <div className="actions">
                <button type="button" className="button" onClick={() => confirmToken(held.id)} disabled={confirming.fetching} aria-label={`Confirm the token received ${formatDate(held.receivedAt)}`}>
                  Confirm
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
      <div className="actions">
        <button type="button" className="button" onClick={reload} disabled={fetching}>
          Check again
        </button>
        <button type="button" className="button" onClick={forget} disabled={discarding.fetching}>
          Discard all tokens
        </button>
      </div>
    </div>
  );
}

interface AuthUrl {
  authUrl: string;
  expiresAt: string;
}

/**
 * A single-use authorization URL for a test account, from the REST endpoint your server calls
 * (GET /api/v1/connector/service/{connector}/auth-url) with the deployment's API key. The key is
 * the one generated in this tab, or pasted here; it is only kept in this form's memory.
 */
function TestAuthUrl({ deploymentId, connector }: { deploymentId: string; connector: Connector }) {
  const [account, setAccount] = useState("test-account");
  const [apiKey, setApiKey] = useState(() => recentApiKey(deploymentId) ?? "");
  const [result, setResult] = useState<AuthUrl>();
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    setResult(undefined);
    try {
      const response = await fetch(`/api/v1/connector/service/${encodeURIComponent(connector.name)}/auth-url?account=${encodeURIComponent(account)}`, {
        headers: { "x-api-key": apiKey.trim() },
        credentials: "omit",
      });
      const body = (await response.json().catch(() => ({}))) as Partial<AuthUrl> & { detail?: string; code?: string };
      if (response.ok && body.authUrl) setResult(body as AuthUrl);
      else if (response.status === 401) setProblem("The API key was not accepted. Paste this deployment's current key (generate one under API Key if it is lost).");
      else setProblem(body.detail ?? `The service answered ${response.status}.`);
    } catch {
      setProblem("Could not reach the Switchyard service. Check that it is running, then try again.");
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="subsection">
      <h3>Try it with a test account</h3>
      <p className="muted">
        Creates the same authorization URL your server gets from <code>GET /api/v1/connector/service/{connector.name}/auth-url</code>. Open it to
        connect an account end to end.
      </p>
      <form className="inline-form" onSubmit={submit} aria-label={`Test authorization URL for ${connector.displayName}`}>
        <Field label="Account" value={account} onChange={(e) => setAccount(e.target.value)} required hint="Your id for the end user." />
        <Field
          label="API key"
          type="password"
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
          required
          autoComplete="off"
          hint={recentApiKey(deploymentId) ? "The key you generated in this tab." : "This deployment's key (sy_…); it is not stored."}
        />
        <button type="submit" className="button primary" disabled={busy || !account || !apiKey.trim()}>
          {busy ? "Creating…" : "Create authorization URL"}
        </button>
      </form>
      {problem && (
        <div className="form-error" role="alert">
          {problem}
        </div>
      )}
      {result && (
        <div className="secret-once ok" role="status">
          <span>
            Single-use, expires {formatDate(result.expiresAt)}:
          </span>
          <div className="secret-line">
            <a href={result.authUrl} target="_blank" rel="noreferrer" data-testid="auth-url">
              {result.authUrl}
            </a>
            <CopyButton value={result.authUrl} />
          </div>
        </div>
      )}
    </div>
  );
}
