import { useId, useMemo, useState } from "react";
import type { TriggerRefInput } from "../generated/graphql.ts";
import { type CatalogConnector, type CatalogTrigger, categoryLabel, iconSource, matchesQuery } from "../settings/useConnectorCatalog.ts";

const MAX_RESULTS = 30;

/**
 * Pick a trigger by typing (searched across every connector: names, descriptions and the
 * provider's own event name), or browse: a category, a connector, then one of its triggers.
 * The chosen trigger's description is shown under the pickers.
 */
export function TriggerPicker(props: {
  connectors: CatalogConnector[];
  connector: string;
  trigger: string;
  onChange(value: TriggerRefInput): void;
}) {
  const searchId = useId();
  const categoryId = useId();
  const connectorId = useId();
  const triggerId = useId();
  const [query, setQuery] = useState("");
  const [category, setCategory] = useState("");
  const categories = useMemo(() => [...new Set(props.connectors.map((c) => c.category))].sort(), [props.connectors]);
  const browsable = props.connectors.filter((c) => !category || c.category === category || c.name === props.connector);
  const chosen = props.connectors.find((c) => c.name === props.connector);
  const chosenTrigger = chosen?.triggers.find((t) => t.name === props.trigger);

  const results = useMemo(() => {
    if (!query.trim()) return [];
    const found: Array<{ connector: CatalogConnector; trigger: CatalogTrigger }> = [];
    for (const connector of props.connectors) {
      if (category && connector.category !== category) continue;
      for (const trigger of connector.triggers) {
        if (matchesQuery(query, connector.displayName, connector.name, trigger.displayName, trigger.name, trigger.providerEvent, trigger.description)) {
          found.push({ connector, trigger });
        }
      }
    }
    // Matches in the trigger's own name first, then the rest in catalog order.
    const inName = (r: (typeof found)[number]) => (matchesQuery(query, r.connector.displayName, r.trigger.displayName, r.trigger.providerEvent) ? 0 : 1);
    return found.map((r, i) => ({ r, i })).sort((a, b) => inName(a.r) - inName(b.r) || a.i - b.i).map(({ r }) => r);
  }, [query, category, props.connectors]);

  return (
    <div className="trigger-picker">
      <div className="picker-row">
        <div className="field">
          <label htmlFor={searchId}>Search triggers</label>
          <input
            id={searchId}
            type="search"
            value={query}
            placeholder="e.g. pull request merged, push, reaction"
            autoComplete="off"
            onChange={(e) => setQuery(e.target.value)}
          />
        </div>
        <div className="field narrow">
          <label htmlFor={categoryId}>Category</label>
          <select id={categoryId} value={category} onChange={(e) => setCategory(e.target.value)}>
            <option value="">All categories</option>
            {categories.map((c) => (
              <option key={c} value={c}>
                {categoryLabel(c)}
              </option>
            ))}
          </select>
        </div>
      </div>
      {query.trim() && (
        <div className="trigger-results">
          {results.length === 0 ? (
            <p className="muted">No trigger matches “{query}”.</p>
          ) : (
            <ul aria-label="Matching triggers">
              {results.slice(0, MAX_RESULTS).map(({ connector, trigger }) => {
                const selected = connector.name === props.connector && trigger.name === props.trigger;
                return (
                  <li key={`${connector.name}.${trigger.name}`}>
                    <button
                      type="button"
                      className={selected ? "trigger-result selected" : "trigger-result"}
                      aria-pressed={selected}
                      onClick={() => {
                        props.onChange({ connector: connector.name, trigger: trigger.name });
                        setQuery("");
                      }}
                    >
                      <img className="connector-icon small" alt="" src={iconSource(connector.icon)} />
                      <span className="row-main">
                        <strong>
                          {connector.displayName} · {trigger.displayName}
                        </strong>
                        <span className="muted">
                          <code>{trigger.providerEvent}</code> {trigger.description}
                        </span>
                      </span>
                    </button>
                  </li>
                );
              })}
            </ul>
          )}
          {results.length > MAX_RESULTS && <p className="hint">{results.length - MAX_RESULTS} more match: keep typing to narrow them down.</p>}
        </div>
      )}
      <div className="picker-row">
        <div className="field">
          <label htmlFor={connectorId}>Connector</label>
          <select id={connectorId} value={props.connector} onChange={(e) => props.onChange({ connector: e.target.value, trigger: "" })}>
            <option value="">Choose a connector…</option>
            {browsable.map((c) => (
              <option key={c.name} value={c.name}>
                {c.displayName}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={triggerId}>Trigger</label>
          <select
            id={triggerId}
            value={props.trigger}
            disabled={!chosen}
            onChange={(e) => props.onChange({ connector: props.connector, trigger: e.target.value })}
          >
            <option value="">{chosen ? `Choose one of ${chosen.triggers.length} triggers…` : "Choose a connector first"}</option>
            {chosen?.triggers.map((t) => (
              <option key={t.name} value={t.name} title={t.description}>
                {t.displayName}
              </option>
            ))}
          </select>
        </div>
      </div>
      {chosenTrigger && (
        <p className="hint trigger-description" data-testid="trigger-description">
          <code>{chosenTrigger.providerEvent}</code> {chosenTrigger.description}
        </p>
      )}
    </div>
  );
}
