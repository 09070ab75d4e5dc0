import type { ResultOf } from "@graphql-typed-document-node/core";
import { type FormEvent, useId, useState } from "react";
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
import type { SectionProps } from "./types.ts";
import { categoryLabel, iconSource, keyed, matchesQuery } from "./useConnectorCatalog.ts";

const ConnectorsQuery = graphql(`
  query ConsoleConnectors($id: ID!) {
    connectors { name displayName category description icon authMode scopes serviceCredentialsConfigured webhookUrlTemplate sendsVerificationToken docs triggers { name displayName } }
    deployment(id: $id) { id connectorCredentials { connector clientId clientSecretSet webhookSecretSet appId appSlug privateKeySet updatedAt } }
  }
`);

const SetCredentialsMutation = graphql(`
  mutation ConsoleSetConnectorCredentials($deploymentId: ID!, $connector: String!, $input: ConnectorCredentialsInput!) {
    setConnectorCredentials(deploymentId: $deploymentId, connector: $connector, input: $input) {
      connector clientId clientSecretSet webhookSecretSet appId appSlug privateKeySet updatedAt
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

/** The service-wide variables that give a connector the service's own OAuth app (or, for an app installation, its app). */
const serviceVariables = (connector: Pick<Connector, "name" | "authMode">) => {
  const prefix = `CONNECTOR_${connector.name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_`;
  return connector.authMode === "APP_INSTALLATION" ? [`${prefix}APP_ID`, `${prefix}SLUG`, `${prefix}PRIVATE_KEY`] : [`${prefix}CLIENT_ID`, `${prefix}CLIENT_SECRET`];
};

/** Whether end users can connect, and through whose OAuth app. */
/** How an end user's account is authorized, in words. */
const AUTH_MODE_LABEL: Record<Connector["authMode"], string> = { OAUTH2: "OAuth", API_KEY: "API key", BASIC: "HTTP Basic", APP_INSTALLATION: "app installation", NONE: "no sign-in" };

function SetupBadge({ connector, credentials }: { connector: Connector; credentials?: Credentials }) {
  // End users bring their own API key or password: nothing to set up.
  if (keyed(connector)) return <span className="badge ok">Ready</span>;
  if (credentials) return <span className="badge ok">{connector.authMode === "APP_INSTALLATION" ? "Your app" : "Your OAuth app"}</span>;
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
  const [onlyConfigured, setOnlyConfigured] = useState(false);
  // Configured: the deployment has its own OAuth app or GitHub App for it.
  const configured = new Set((data?.deployment?.connectorCredentials ?? []).map((c) => c.connector));
  const shown = (data?.connectors ?? [])
    .filter((c) => (!category || c.category === category) && (!onlyConfigured || configured.has(c.name)) && matchesQuery(query, c.displayName, c.name, c.category, c.description))
    // Configured ones first, then by name: the catalog is long (over a hundred).
    .sort((a, b) => Number(configured.has(b.name)) - Number(configured.has(a.name)) || a.displayName.localeCompare(b.displayName));
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
          <label className="check">
            <input type="checkbox" checked={onlyConfigured} onChange={(e) => setOnlyConfigured(e.target.checked)} />
            Only configured ({configured.size})
          </label>
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
      <TestAuthUrl deploymentId={props.deploymentId} connector={connector} canManage={props.canManage} />
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
  // An app installation (GitHub App) is set up with the app's id, slug and private key; its OAuth client is optional.
  const installation = connector.authMode === "APP_INSTALLATION";
  const app = installation ? "app" : "OAuth app";
  const [editing, setEditing] = useState(false);
  const blank = { clientId: credentials?.clientId ?? "", clientSecret: "", webhookSecret: "", appId: credentials?.appId ?? "", appSlug: credentials?.appSlug ?? "", privateKey: "" };
  const [values, setValues] = useState(blank);
  const [saving, save] = useMutation(SetCredentialsMutation);
  const removal = useConfirmedMutation(DeleteCredentialsMutation, {
    variables: () => ({ deploymentId, connector: connector.name }),
    success: () => `${connector.displayName} uses the service's credentials again.`,
    done: onChanged,
  });
  const toast = useToast();
  const fields = fieldErrors(saving.error);
  const error = (name: keyof typeof values) => fields[name] ?? fields[`input.${name}`];
  const set = (name: keyof typeof values) => (e: { target: { value: string } }) => setValues({ ...values, [name]: e.target.value });
  const ready = installation ? values.appId.trim() && values.appSlug.trim() && values.privateKey.trim() : values.clientId.trim() && values.clientSecret;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const optional = (name: keyof typeof values) => (values[name] ? { [name]: values[name] } : {});
    const input = installation
      ? { appId: values.appId, appSlug: values.appSlug, privateKey: values.privateKey, ...optional("clientId"), ...optional("clientSecret"), ...optional("webhookSecret") }
      : { clientId: values.clientId, clientSecret: values.clientSecret, ...optional("webhookSecret") };
    const result = await save({ deploymentId, connector: connector.name, input });
    if (result.data) {
      toast.success(`${connector.displayName} now uses your ${app}.`);
      setEditing(false);
      setValues({ ...values, clientSecret: "", webhookSecret: "", privateKey: "" });
      onChanged();
    }
  };
  return (
    <div className="subsection">
      <h3>{installation ? "Your app" : "OAuth app"}</h3>
      {credentials ? (
        installation ? (
          <p>
            Your own app: id <code>{credentials.appId}</code>, slug <code>{credentials.appSlug}</code>, private key {credentials.privateKeySet ? "set" : "not set"}, webhook
            secret {credentials.webhookSecretSet ? "set" : "not set"} (updated {formatDate(credentials.updatedAt)}).
          </p>
        ) : (
          <p>
            Your own app: client ID <code>{credentials.clientId}</code>, secret {credentials.clientSecretSet ? "set" : "not set"}, webhook secret{" "}
            {credentials.webhookSecretSet ? "set" : "not set"} (updated {formatDate(credentials.updatedAt)}).
          </p>
        )
      ) : connector.serviceCredentialsConfigured ? (
        <p>Using the Switchyard service's credentials. End users see a consent page from this service before the provider's.</p>
      ) : (
        <p className="setup-fix" data-testid={`setup-fix-${connector.name}`}>
          Not set up: end users cannot connect {connector.displayName} yet. Use your own {installation ? "app's id, slug and private key" : "client ID and secret"} below, or set{" "}
          {serviceVariables(connector).map((v, i, all) => (
            <span key={v}>
              {i > 0 && (i === all.length - 1 ? " and " : ", ")}
              <code>{v}</code>
            </span>
          ))}{" "}
          on the Switchyard service.
        </p>
      )}
      {canManage && !editing && (
        <div className="actions">
          <button type="button" className="button" onClick={() => setEditing(true)}>
            {installation ? (credentials ? "Replace your app" : "Use your own app") : credentials ? "Replace client ID and secret" : "Use your own client ID and secret"}
          </button>
          {credentials && (
            <button type="button" className="button" onClick={() => removal.ask()}>
              Use the service's credentials
            </button>
          )}
        </div>
      )}
      {editing && (
        <form onSubmit={submit} aria-label={`${connector.displayName} ${app}`}>
          {saving.error && Object.keys(fields).length === 0 && (
            <div className="form-error" role="alert">
              {describeError(saving.error)}
            </div>
          )}
          {installation && (
            <>
              <Field label="App ID" required value={values.appId} onChange={set("appId")} error={error("appId")} autoComplete="off" hint="On the app's settings page (or its client ID)." />
              <Field label="App slug" required value={values.appSlug} onChange={set("appSlug")} error={error("appSlug")} autoComplete="off" hint="As in https://github.com/apps/<slug>." />
              <PrivateKeyField value={values.privateKey} onChange={set("privateKey")} error={error("privateKey")} />
            </>
          )}
          <Field
            label={installation ? "Client ID (optional)" : "Client ID"}
            required={!installation}
            value={values.clientId}
            onChange={set("clientId")}
            error={error("clientId")}
            autoComplete="off"
            hint={installation ? "The app's OAuth client: installations are then confirmed with the installing user's authorization." : undefined}
          />
          <Field
            label={installation ? "Client secret (optional)" : "Client secret"}
            type="password"
            required={!installation}
            value={values.clientSecret}
            onChange={set("clientSecret")}
            error={error("clientSecret")}
            autoComplete="new-password"
            hint="Stored encrypted; never shown again."
          />
          <Field
            label="Webhook secret (optional)"
            type="password"
            value={values.webhookSecret}
            onChange={set("webhookSecret")}
            error={error("webhookSecret")}
            autoComplete="new-password"
            hint="The secret the provider signs its webhooks with, if you registered the webhook URL in your own app."
          />
          <div className="actions">
            <button type="submit" className="button primary" disabled={saving.fetching || !ready}>
              {saving.fetching ? "Saving…" : "Save credentials"}
            </button>
            <button type="button" className="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <ConfirmDialog {...removal.dialog} title={`Use the service's credentials for ${connector.displayName}?`} confirmLabel="Use the service's credentials">
        <p>Your {installation ? "app's id, slug and private key are" : "client ID and secret are"} deleted. New connections go through the Switchyard service's {app}.</p>
      </ConfirmDialog>
    </div>
  );
}

/** The app's private key (PEM, several lines): a labelled text area, wired like Field. */
function PrivateKeyField({ value, onChange, error }: { value: string; onChange(e: { target: { value: string } }): void; error?: string }) {
  const id = useId();
  return (
    <div className={error ? "field invalid" : "field"}>
      <label htmlFor={id}>Private key</label>
      <textarea
        id={id}
        required
        rows={5}
        spellCheck={false}
        autoComplete="off"
        value={value}
        onChange={onChange}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`}
      />
      <div className="hint" id={`${id}-hint`}>
        The .pem file GitHub generated for the app, pasted whole. Stored encrypted; never shown again.
      </div>
      {error && (
        <div className="field-error" id={`${id}-error`}>
          {error}
        </div>
      )}
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

const TestAuthUrlMutation = graphql(`
  mutation ConsoleTestAuthorizationUrl($deploymentId: ID!, $connector: String!, $account: String!) {
    createTestAuthorizationUrl(deploymentId: $deploymentId, connector: $connector, account: $account) { authUrl expiresAt }
  }
`);

/**
 * A single-use authorization URL for a test account: the same URL your server gets from
 * GET /api/v1/connector/service/{connector}/auth-url, made by `createTestAuthorizationUrl` for this
 * logged-in session (owners and admins), so the API key shown once is not needed.
 */
function TestAuthUrl({ deploymentId, connector, canManage }: { deploymentId: string; connector: Connector; canManage: boolean }) {
  const [account, setAccount] = useState("test-account");
  const [{ data, error, fetching: busy }, create] = useMutation(TestAuthUrlMutation);
  const accountError = error ? fieldErrors(error).account : undefined;
  const problem = error && !accountError ? describeError(error) : undefined;
  const result = data?.createTestAuthorizationUrl;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await create({ deploymentId, connector: connector.name, account });
  };
  return (
    <div className="subsection">
      <h3>Try it with a test account</h3>
      <p className="muted">
        Creates the same authorization URL your server gets from <code>GET /api/v1/connector/service/{connector.name}/auth-url</code>. Open it to
        connect an account end to end.
      </p>
      {canManage ? (
        <form className="inline-form" onSubmit={submit} aria-label={`Test authorization URL for ${connector.displayName}`}>
          <Field label="Account" value={account} onChange={(e) => setAccount(e.target.value)} required hint="Your id for the end user." error={accountError} />
          <button type="submit" className="button primary" disabled={busy || !account}>
            {busy ? "Creating…" : "Create authorization URL"}
          </button>
        </form>
      ) : (
        <p className="muted">Owners and admins can create a test authorization URL here.</p>
      )}
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
