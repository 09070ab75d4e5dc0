import { formatSeconds } from "../../format.ts";
import { DeliveryActions } from "./DeliveryActions.tsx";
import { EventDetails } from "./EventDetails.tsx";
import { badgeOf, type EventNode } from "./eventLog.ts";

/** An event's row (its latest delivery's state and actions), and its details below when opened. */
export function EventRow(props: {
  deploymentId: string;
  event: EventNode;
  version: number;
  canManage: boolean;
  expanded: boolean;
  onToggle(): void;
  onChanged(): void;
}) {
  const { deploymentId, event, version, canManage, expanded, onToggle, onChanged } = props;
  const delivery = event.deliveries.at(-1);
  const badge = delivery ? badgeOf(delivery.status) : undefined;
  return (
    <>
      <tr data-event-id={event.id} data-status={delivery?.status ?? "NONE"}>
        <td data-label="Received">{formatSeconds(event.receivedAt)}</td>
        <td data-label="Type">
          <code>{event.type}</code>
        </td>
        <td data-label="Account">{event.account}</td>
        <td data-label="Delivery">
          {badge ? <span className={`badge ${badge.tone}`}>{badge.label}</span> : <span className="muted">not forwarded</span>}
          {delivery?.status === "PENDING" && !delivery.nextAttemptAt && <span className="muted"> · held</span>}
        </td>
        <td data-label="Attempts">{delivery?.attempts ?? "—"}</td>
        <td data-label="Response">{delivery?.lastStatusCode ?? (delivery?.lastError ? "error" : "—")}</td>
        <td className="row-actions">
          <button type="button" className="button small" aria-expanded={expanded} onClick={onToggle}>
            {expanded ? "Hide" : "Details"}
          </button>
          {canManage && delivery && <DeliveryActions delivery={delivery} onChanged={onChanged} />}
        </td>
      </tr>
      {expanded && (
        <tr className="details">
          <td colSpan={7}>
            <EventDetails deploymentId={deploymentId} event={event} delivery={delivery} version={version} />
          </td>
        </tr>
      )}
    </>
  );
}
