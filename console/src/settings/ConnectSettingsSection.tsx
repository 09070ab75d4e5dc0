import { type FormEvent, useId, useState } from "react";
import { useMutation, useQuery } from "urql";
import { useToast } from "../components/Toasts.tsx";
import { LoadError, Loading } from "../components/States.tsx";
import { describeError, fieldErrors } from "../errors.ts";
import { graphql } from "../generated/gql.ts";
import type { SectionProps } from "./types.ts";

const ConnectSettingsQuery = graphql(`
  query ConsoleConnectSettings($id: ID!) {
    deployment(id: $id) { id connectSettings { allowedRedirectOrigins proxyRateLimitPerMinute } }
  }
`);

const SaveConnectSettingsMutation = graphql(`
  mutation ConsoleSaveConnectSettings($deploymentId: ID!, $input: ConnectSettingsInput!) {
    saveConnectSettings(deploymentId: $deploymentId, input: $input) { allowedRedirectOrigins proxyRateLimitPerMinute }
  }
`);

/**
 * Connect settings: the origins an auth-url's `redirectUrl` may point at, one per line. Each
 * origin's problem (from the service, which normalises and checks them) is shown under the list.
 */
export function ConnectSettingsSection({ deploymentId, canManage }: SectionProps) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: ConnectSettingsQuery, variables: { id: deploymentId } });
  const saved = data?.deployment?.connectSettings.allowedRedirectOrigins;
  const savedLimit = data?.deployment?.connectSettings.proxyRateLimitPerMinute ?? null;
  if (error && !data) return <LoadError error={error} retry={() => refetch({ requestPolicy: "network-only" })} />;
  if (fetching && !data) return <Loading />;
  // Keyed by what is saved: after a save the form starts again from the service's normalised list.
  return <ConnectSettingsForm key={`${(saved ?? []).join("\n")} ${savedLimit}`} deploymentId={deploymentId} canManage={canManage} saved={saved ?? []} savedLimit={savedLimit} />;
}

function ConnectSettingsForm({ deploymentId, canManage, saved, savedLimit }: Omit<SectionProps, "health"> & { saved: string[]; savedLimit: number | null }) {
  const [text, setText] = useState(saved.join("\n"));
  const [limitText, setLimitText] = useState(savedLimit === null ? "" : String(savedLimit));
  const [saving, save] = useMutation(SaveConnectSettingsMutation);
  const toast = useToast();
  const id = useId();
  const origins = text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  // Empty: no limit. Anything else is sent as it is typed and judged by the service.
  const limit = limitText.trim() === "" ? null : Number(limitText.trim());
  const dirty = origins.join("\n") !== saved.join("\n") || limit !== savedLimit;
  const allProblems = fieldErrors(saving.error);
  const limitProblem = allProblems.proxyRateLimitPerMinute;
  const problems = Object.entries(allProblems).filter(([field]) => field !== "proxyRateLimitPerMinute");

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!dirty) return;
    const result = await save({ deploymentId, input: { allowedRedirectOrigins: origins, proxyRateLimitPerMinute: limit } });
    if (result.error) {
      if (Object.keys(fieldErrors(result.error)).length === 0) toast.error(describeError(result.error));
      return;
    }
    toast.success("Connect settings saved.");
  };

  return (
    <form className="panel" onSubmit={submit} aria-labelledby={`${id}-title`} noValidate>
      <h2 id={`${id}-title`}>Connect settings</h2>
      <p className="muted">
        When an authorization URL is made with <code>redirectUrl</code>, the end user&apos;s browser goes back there when the flow ends, with{" "}
        <code>status=connected</code> and the <code>connectionId</code>, or <code>status=error</code> and an <code>error</code> code. Its origin
        must be one of these.
      </p>
      <fieldset disabled={!canManage} className="plain">
        <div className={problems.length ? "field invalid" : "field"}>
          <label htmlFor={`${id}-origins`}>Allowed redirect origins</label>
          <textarea
            id={`${id}-origins`}
            name="allowedRedirectOrigins"
            rows={4}
            placeholder={"https://app.example.com\nhttp://localhost:3000"}
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-invalid={problems.length ? true : undefined}
            aria-describedby={`${id}-hint${problems.length ? ` ${id}-errors` : ""}`}
          />
          <div className="hint" id={`${id}-hint`}>
            One origin per line, scheme://host[:port], at most 20: https, or http for localhost only.
          </div>
          {problems.length > 0 && (
            <div className="field-error" id={`${id}-errors`} role="alert">
              <ul>
                {problems.map(([field, message]) => (
                  <li key={field}>{message}</li>
                ))}
              </ul>
            </div>
          )}
        </div>
        <div className={limitProblem ? "field invalid" : "field"}>
          <label htmlFor={`${id}-limit`}>Proxy requests per connection per minute</label>
          <input
            id={`${id}-limit`}
            name="proxyRateLimitPerMinute"
            type="number"
            inputMode="numeric"
            min={1}
            placeholder="No limit"
            value={limitText}
            onChange={(e) => setLimitText(e.target.value)}
            aria-invalid={limitProblem ? true : undefined}
            aria-describedby={`${id}-limit-hint${limitProblem ? ` ${id}-limit-error` : ""}`}
          />
          <div className="hint" id={`${id}-limit-hint`}>
            Past it, a request through the proxy is answered 429 <code>rate_limited</code> with <code>Retry-After</code> and the provider is not
            called. Empty: no limit.
          </div>
          {limitProblem && (
            <div className="field-error" id={`${id}-limit-error`} role="alert">
              {limitProblem}
            </div>
          )}
        </div>
      </fieldset>
      <div className="actions">
        <button type="submit" className="button primary" disabled={!canManage || !dirty || saving.fetching}>
          {saving.fetching ? "Saving…" : "Save Changes"}
        </button>
        {dirty && <span className="unsaved">Unsaved changes</span>}
        {!canManage && <span className="muted">Only owners and admins can change Connect settings.</span>}
      </div>
    </form>
  );
}
