import { useState } from "react";
import { useConnectorCatalog } from "../useConnectorCatalog.ts";
import { type Filter, statusBadge } from "./eventLog.ts";

/** The filter form: edits a draft, applied (or cleared) on submit. */
export function EventFilters({ onApply, initial = {} }: { onApply(filter: Filter): void; initial?: Filter }) {
  const [draft, setDraft] = useState<Filter>(initial);
  const catalog = useConnectorCatalog();
  return (
    <form
      className="filters"
      aria-label="Filter events"
      onSubmit={(event) => {
        event.preventDefault();
        onApply(draft);
      }}
    >
      <label>
        Status
        <select value={draft.status ?? ""} onChange={(e) => setDraft({ ...draft, status: e.target.value })}>
          <option value="">Any</option>
          {Object.entries(statusBadge).map(([value, badge]) => (
            <option key={value} value={value}>
              {badge.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Connector
        <select value={draft.connector ?? ""} onChange={(e) => setDraft({ ...draft, connector: e.target.value, trigger: "" })}>
          <option value="">Any</option>
          {catalog.connectors.map((c) => (
            <option key={c.name} value={c.name}>
              {c.displayName}
            </option>
          ))}
        </select>
      </label>
      <label>
        Trigger
        <select value={draft.trigger ?? ""} onChange={(e) => setDraft({ ...draft, trigger: e.target.value })} disabled={!draft.connector}>
          <option value="">Any</option>
          {(catalog.connectors.find((c) => c.name === draft.connector)?.triggers ?? []).map((t) => (
            <option key={t.name} value={t.name}>
              {t.displayName}
            </option>
          ))}
        </select>
      </label>
      <label>
        Account
        <input value={draft.account ?? ""} onChange={(e) => setDraft({ ...draft, account: e.target.value })} placeholder="any" />
      </label>
      <label>
        From
        <input type="datetime-local" step={1} value={draft.since ?? ""} onChange={(e) => setDraft({ ...draft, since: e.target.value })} />
      </label>
      <label>
        To
        <input type="datetime-local" step={1} value={draft.until ?? ""} onChange={(e) => setDraft({ ...draft, until: e.target.value })} />
      </label>
      <label>
        Event id
        <input value={draft.id ?? ""} onChange={(e) => setDraft({ ...draft, id: e.target.value.trim() })} placeholder="evt_…" />
      </label>
      <div className="actions">
        <button type="submit" className="button primary small">
          Apply filters
        </button>
        <button
          type="button"
          className="button small"
          onClick={() => {
            setDraft({});
            onApply({});
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
