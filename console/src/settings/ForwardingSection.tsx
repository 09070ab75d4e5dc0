import type { ResultOf } from "@graphql-typed-document-node/core";
import { type FormEvent, useEffect, useMemo, useState } from "react";
import { useMutation, useQuery } from "urql";
import { Field } from "../components/Field.tsx";
import { LoadError, Loading } from "../components/States.tsx";
import { useToast } from "../components/Toasts.tsx";
import { TriggerPicker } from "../components/TriggerPicker.tsx";
import { describeError, fieldErrors } from "../errors.ts";
import { graphql } from "../generated/gql.ts";
import type { TriggerRefInput } from "../generated/graphql.ts";
import { setLeaveGuard } from "../router.tsx";
import { ForwardingHealth } from "./health.tsx";
import type { SectionProps } from "./types.ts";
import { useConnectorCatalog } from "./useConnectorCatalog.ts";

const ForwardingQuery = graphql(`
  query ConsoleForwardingSettings($id: ID!) {
    deployment(id: $id) {
      id
      forwardingSettings { forwardingUrl headerKey headerValueSet triggers { connector trigger } }
    }
  }
`);

const SaveForwardingMutation = graphql(`
  mutation ConsoleSaveForwardingSettings($deploymentId: ID!, $input: ForwardingSettingsInput!) {
    saveForwardingSettings(deploymentId: $deploymentId, input: $input) {
      forwardingUrl headerKey headerValueSet triggers { connector trigger }
    }
  }
`);

type TriggerRef = TriggerRefInput;

type Settings = NonNullable<NonNullable<ResultOf<typeof ForwardingQuery>["deployment"]>["forwardingSettings"]>;
/** The saved settings as the form starts from them: blanks where nothing is saved yet, triggers as inputs. */
type Saved = { [K in "forwardingUrl" | "headerKey" | "headerValueSet"]: NonNullable<Settings[K]> } & { triggers: TriggerRef[] };

const key = (ref: TriggerRef) => `${ref.connector}.${ref.trigger}`;
const UNSAVED_WARNING = "You have unsaved changes to Trigger Forwarding. Leave without saving?";

/**
 * Trigger Forwarding: where events go, with which header, for which triggers. Everything is a
 * draft until Save Changes, which replaces the whole settings at once (saveForwardingSettings).
 */
export function ForwardingSection({ deploymentId, canManage, health }: SectionProps) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: ForwardingQuery, variables: { id: deploymentId } });
  if (error && !data) return <LoadError error={error} retry={() => refetch({ requestPolicy: "network-only" })} />;
  if (fetching && !data) return <Loading what="Loading forwarding settings" />;
  const settings = data?.deployment?.forwardingSettings;
  const saved: Saved = {
    forwardingUrl: settings?.forwardingUrl ?? "",
    headerKey: settings?.headerKey ?? "",
    headerValueSet: settings?.headerValueSet ?? false,
    triggers: settings?.triggers.map(({ connector, trigger }) => ({ connector, trigger })) ?? [],
  };
  return (
    <>
      <ForwardingHealth health={health} deploymentId={deploymentId} canManage={canManage} />
      <ForwardingForm
        key={JSON.stringify(saved)}
        deploymentId={deploymentId}
        canManage={canManage}
        saved={saved}
        isNew={!settings}
        onSaved={() => {
          refetch({ requestPolicy: "network-only" });
          health.reload();
        }}
      />
    </>
  );
}

function ForwardingForm({ deploymentId, canManage, saved, isNew, onSaved }: Omit<SectionProps, "health"> & { saved: Saved; isNew: boolean; onSaved(): void }) {
  const [url, setUrl] = useState(saved.forwardingUrl);
  const [headerKey, setHeaderKey] = useState(saved.headerKey);
  const [headerValue, setHeaderValue] = useState("");
  const [triggers, setTriggers] = useState<TriggerRef[]>(saved.triggers);
  const [pick, setPick] = useState<TriggerRef>({ connector: "", trigger: "" });
  const [saving, save] = useMutation(SaveForwardingMutation);
  const catalog = useConnectorCatalog();
  const toast = useToast();
  // The values the last refused save sent: an error is shown under its field only while the field
  // still holds what was refused (a corrected URL loses its stale message at once).
  const [refused, setRefused] = useState<{ url: string; headerKey: string; headerValue: string; triggers: string }>();
  const current = { url: url.trim(), headerKey: headerKey.trim(), headerValue, triggers: triggers.map(key).join(",") };
  const fields = Object.fromEntries(
    Object.entries(fieldErrors(saving.error)).filter(([field]) => {
      if (!refused) return false;
      if (field === "forwardingUrl") return current.url === refused.url;
      if (field === "headerKey") return current.headerKey === refused.headerKey;
      if (field === "headerValue") return current.headerValue === refused.headerValue && current.headerKey === refused.headerKey;
      if (field.startsWith("triggers")) return current.triggers === refused.triggers;
      return true;
    }),
  ) as Record<string, string>;

  const dirty = useMemo(
    () =>
      url !== saved.forwardingUrl ||
      headerKey !== saved.headerKey ||
      headerValue !== "" ||
      triggers.length !== saved.triggers.length ||
      triggers.some((t, i) => key(t) !== key(saved.triggers[i])),
    [url, headerKey, headerValue, triggers, saved],
  );

  // Leaving with unsaved changes asks first: closing the tab (beforeunload) or moving in the console.
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = UNSAVED_WARNING;
    };
    window.addEventListener("beforeunload", warn);
    setLeaveGuard(() => window.confirm(UNSAVED_WARNING));
    return () => {
      window.removeEventListener("beforeunload", warn);
      setLeaveGuard(undefined);
    };
  }, [dirty]);

  const [lastAdded, setLastAdded] = useState("");
  const inList = (ref: TriggerRef) => triggers.some((t) => key(t) === key(ref));
  const add = (ref: TriggerRef) => {
    if (inList(ref)) return;
    setTriggers([...triggers, ref]);
    setLastAdded(`${catalog.label(ref.connector, ref.trigger)} added to the list (not saved yet).`);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!dirty) return;
    const input = {
      forwardingUrl: url.trim(),
      headerKey: headerKey.trim() || null,
      // Empty keeps the stored value (the API never returns it); a cleared key removes the header.
      headerValue: headerKey.trim() && headerValue ? headerValue : null,
      triggers,
    };
    setRefused(undefined);
    const result = await save({ deploymentId, input });
    if (result.error) {
      setRefused(current);
      if (Object.keys(fieldErrors(result.error)).length === 0) toast.error(describeError(result.error));
      return;
    }
    setLeaveGuard(undefined);
    toast.success("Forwarding settings saved.");
    onSaved(); // the form starts again from what the service now has
  };

  const triggerErrors = Object.entries(fields).filter(([field]) => field.startsWith("triggers"));

  return (
    <form className="panel" onSubmit={submit} aria-labelledby="forwarding-title" noValidate>
      <h2 id="forwarding-title">Trigger Forwarding</h2>
      <p className="muted">
        When a trigger in the list happens for a connected account, Switchyard sends its data to your Forwarding URL as a signed JSON POST, and
        retries until your server answers 2xx.
      </p>
      {isNew && <p className="empty-line">Forwarding is not set up yet for this deployment.</p>}
      <fieldset disabled={!canManage} className="plain">
        <Field
          label="Forwarding URL"
          name="forwardingUrl"
          type="url"
          required
          placeholder="https://api.example.com/switchyard/events"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          error={fields.forwardingUrl}
        />
        <div className="two-columns">
          <Field
            label="Forwarding Header Key (optional)"
            name="headerKey"
            placeholder="Authorization"
            value={headerKey}
            onChange={(e) => setHeaderKey(e.target.value)}
            error={fields.headerKey}
            autoComplete="off"
          />
          <Field
            label="Forwarding Header Value (optional)"
            name="headerValue"
            type="password"
            placeholder={saved.headerValueSet ? "•••••••• saved — type to replace" : "Bearer …"}
            value={headerValue}
            onChange={(e) => setHeaderValue(e.target.value)}
            error={fields.headerValue}
            autoComplete="new-password"
            hint={saved.headerValueSet ? "A value is saved. It is stored encrypted and never shown." : "Sent with every forwarded request."}
          />
        </div>

        <div className="subsection">
          <h3 id="trigger-list-title">Forwarding Trigger List</h3>
          {triggers.length === 0 ? (
            <p className="empty-line">No triggers yet: nothing is forwarded. Add one below.</p>
          ) : (
            <ul className="trigger-list" aria-labelledby="trigger-list-title">
              {triggers.map((t) => (
                <li key={key(t)} className="chip">
                  <span>{catalog.label(t.connector, t.trigger)}</span>
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={`Remove ${catalog.label(t.connector, t.trigger)}`}
                    onClick={() => setTriggers(triggers.filter((x) => key(x) !== key(t)))}
                  >
                    ×
                  </button>
                </li>
              ))}
            </ul>
          )}
          {triggerErrors.map(([field, message]) => (
            <div key={field} className="field-error" role="alert">
              {triggerLabel(field, triggers, catalog.label)} {message}
            </div>
          ))}
          {canManage && (
            <TriggerPicker connectors={catalog.connectors} connector={pick.connector} trigger={pick.trigger} onChange={setPick} onAdd={add} isAdded={inList} />
          )}
          <p className="visually-hidden" role="status">
            {lastAdded}
          </p>
        </div>
      </fieldset>

      {saving.error && Object.keys(fields).length > 0 && (
        <div className="form-error" role="alert">
          Not saved: fix the fields marked below the inputs, then Save Changes again.
        </div>
      )}
      <div className="actions">
        <button type="submit" className="button primary" disabled={!canManage || !dirty || saving.fetching}>
          {saving.fetching ? "Saving…" : "Save Changes"}
        </button>
        {dirty && <span className="unsaved">Unsaved changes</span>}
        {!canManage && <span className="muted">Only owners and admins can change forwarding.</span>}
      </div>
    </form>
  );
}

/** "triggers.2" → the label of the third trigger, so a server error names what is wrong. */
function triggerLabel(field: string, triggers: TriggerRef[], label: (c: string, t: string) => string): string {
  const index = Number(field.split(".")[1]);
  const ref = Number.isInteger(index) ? triggers[index] : undefined;
  return ref ? `${label(ref.connector, ref.trigger)}:` : "Trigger list:";
}
