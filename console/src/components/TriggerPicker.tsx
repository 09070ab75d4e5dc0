import { useId } from "react";
import type { CatalogConnector } from "../settings/useConnectorCatalog.ts";

/** Pick a Connector, then one of its Triggers. */
export function TriggerPicker(props: {
  connectors: CatalogConnector[];
  connector: string;
  trigger: string;
  onChange(value: { connector: string; trigger: string }): void;
}) {
  const connectorId = useId();
  const triggerId = useId();
  const chosen = props.connectors.find((c) => c.name === props.connector);
  return (
    <>
      <div className="field">
        <label htmlFor={connectorId}>Connector</label>
        <select id={connectorId} value={props.connector} onChange={(e) => props.onChange({ connector: e.target.value, trigger: "" })}>
          <option value="">Choose a connector…</option>
          {props.connectors.map((c) => (
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
          <option value="">{chosen ? "Choose a trigger…" : "Choose a connector first"}</option>
          {chosen?.triggers.map((t) => (
            <option key={t.name} value={t.name} title={t.description}>
              {t.displayName}
            </option>
          ))}
        </select>
      </div>
    </>
  );
}
