import { useId, useMemo, useState } from "react";
import type { TriggerRefInput } from "../generated/graphql.ts";
import { type CatalogConnector, type CatalogTrigger, categoryLabel, iconSource, matchesQuery } from "../settings/useConnectorCatalog.ts";

const MAX_RESULTS = 30;

/**
 * Pick a trigger by typing (searched across every connector: names, descriptions and the
 * provider's own event name), or browse: a category, a connector, then one of its triggers.
 * The chosen trigger's description is shown under the pickers.
 *
 * With `onAdd` the picker fills a list instead of choosing one trigger: the two ways each carry
 * their own Add — every search hit is an "Add <connector> · <trigger>" button, and the browse row
 * ends in a button that names the trigger its selects show — so it is never a question which of
 * the two one shared button would add.
 */
export function TriggerPicker(props: {
  connectors: CatalogConnector[];
  connector: string;
  trigger: string;
  onChange(value: TriggerRefInput): void;
  onAdd?(value: TriggerRefInput): void;
  isAdded?(value: TriggerRefInput): boolean;
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
                    {props.onAdd ? (
                      <AddResult connector={connector} trigger={trigger} added={props.isAdded?.({ connector: connector.name, trigger: trigger.name }) ?? false} onAdd={props.onAdd} />
                    ) : (
                      <button
                        type="button"
                        className={selected ? "trigger-result selected" : "trigger-result"}
                        aria-pressed={selected}
                        onClick={() => {
                          props.onChange({ connector: connector.name, trigger: trigger.name });
                          setQuery("");
                        }}
                      >
                        <ResultText connector={connector} trigger={trigger} />
                      </button>
                    )}
                  </li>
                );
              })}
            </ul>
          )}
          {results.length > MAX_RESULTS && <p className="hint">{results.length - MAX_RESULTS} more match: keep typing to narrow them down.</p>}
        </div>
      )}
      {props.onAdd && <p className="picker-or">Or browse by connector:</p>}
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
        {props.onAdd && <BrowseAdd connector={chosen} trigger={chosenTrigger} added={chosenTrigger ? (props.isAdded?.({ connector: props.connector, trigger: props.trigger }) ?? false) : false} onAdd={props.onAdd} />}
      </div>
      {chosenTrigger && (
        <p className="hint trigger-description" data-testid="trigger-description">
          <code>{chosenTrigger.providerEvent}</code> {chosenTrigger.description}
        </p>
      )}
    </div>
  );
}

function ResultText({ connector, trigger }: { connector: CatalogConnector; trigger: CatalogTrigger }) {
  return (
    <>
      <img className="connector-icon small" alt="" src={iconSource(connector.icon)} />
      <span className="row-main">
        <strong>
          {connector.displayName} · {trigger.displayName}
        </strong>
        <span className="muted">
          <code>{trigger.providerEvent}</code> {trigger.description}
        </span>
      </span>
    </>
  );
}

/**
 * One search hit with its own Add button beside the words (not around them, so the button's name
 * is short and contains its visible text). Once in the list the button stays focusable
 * (aria-disabled, not disabled) so a keyboard user who just pressed it keeps their place.
 */
function AddResult(props: { connector: CatalogConnector; trigger: CatalogTrigger; added: boolean; onAdd(value: TriggerRefInput): void }) {
  const name = `${props.connector.displayName} · ${props.trigger.displayName}`;
  return (
    <div className={props.added ? "trigger-result added" : "trigger-result"}>
      <ResultText connector={props.connector} trigger={props.trigger} />
      <button
        type="button"
        className="result-action"
        aria-label={props.added ? `In the list: ${name}` : `Add ${name}`}
        aria-disabled={props.added || undefined}
        onClick={() => {
          if (!props.added) props.onAdd({ connector: props.connector.name, trigger: props.trigger.name });
        }}
      >
        {props.added ? "In the list" : "Add"}
      </button>
    </div>
  );
}

/** The browse row's own Add, named after what its selects show; focusable even when there is nothing to add. */
function BrowseAdd(props: { connector?: CatalogConnector; trigger?: CatalogTrigger; added: boolean; onAdd(value: TriggerRefInput): void }) {
  const { connector, trigger } = props;
  const unavailable = !connector || !trigger || props.added;
  const text = !connector || !trigger ? "Add trigger" : props.added ? `In the list: ${connector.displayName} · ${trigger.displayName}` : `Add ${connector.displayName} · ${trigger.displayName}`;
  return (
    <button
      type="button"
      className="button browse-add"
      aria-disabled={unavailable || undefined}
      onClick={() => {
        if (!unavailable) props.onAdd({ connector: connector.name, trigger: trigger.name });
      }}
    >
      {text}
    </button>
  );
}
