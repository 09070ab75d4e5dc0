import { formatFromNow, formatRelative, formatSeconds } from "../../format.ts";
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
  /** The test event just sent: marked so it is seen at once. */
  highlighted?: boolean;
}) {
  const { deploymentId, event, version, canManage, expanded, onToggle, onChanged } = props;
  const delivery = event.deliveries.at(-1);
  const badge = delivery ? badgeOf(delivery.status) : undefined;
  return (
    <>
      <tr data-event-id={event.id} data-status={delivery?.status ?? "NONE"} className={props.highlighted ? "one-line highlight" : "one-line"}>
        <td data-label="Received" className="nowrap">
          <time dateTime={event.receivedAt} title={formatSeconds(event.receivedAt)}>
            {formatRelative(event.receivedAt)}
          </time>
        </td>
        <td data-label="Type" className="ellipsis">
          <code title={event.type}>{event.type}</code>
        </td>
        <td data-label="Account" className="ellipsis">
          {event.account}
        </td>
        <td data-label="Delivery" className="nowrap">
          {badge ? <span className={`badge ${badge.tone}`}>{badge.label}</span> : <span className="muted">not forwarded</span>}
          {delivery && <DeliveryNote delivery={delivery} />}
        </td>
        <td className="row-actions">
          <button type="button" className="button small" aria-expanded={expanded} onClick={onToggle}>
            {expanded ? "Hide" : "Details"}
          </button>
          {canManage && delivery && <DeliveryActions delivery={delivery} onChanged={onChanged} />}
        </td>
      </tr>
      {expanded && (
        <tr className="details">
          <td colSpan={5}>
            <EventDetails deploymentId={deploymentId} event={event} delivery={delivery} version={version} />
          </td>
        </tr>
      )}
    </>
  );
}

/**
 * Beside the status pill, on the same line: held, or the attempts so far, the last answer and
 * when the next attempt goes ("2 attempts · 500 · next in 4 min").
 */
function DeliveryNote({ delivery }: { delivery: NonNullable<EventNode["deliveries"][number]> }) {
  if (delivery.status === "PENDING" && !delivery.nextAttemptAt) return <span className="muted"> · held</span>;
  const parts: string[] = [];
  if (delivery.attempts > 0) parts.push(`${delivery.attempts} ${delivery.attempts === 1 ? "attempt" : "attempts"}`);
  if (delivery.lastStatusCode !== null && delivery.lastStatusCode !== undefined) parts.push(String(delivery.lastStatusCode));
  else if (delivery.lastError) parts.push("no answer");
  if (delivery.status === "PENDING" && delivery.nextAttemptAt && delivery.attempts > 0) parts.push(`next ${formatFromNow(delivery.nextAttemptAt)}`);
  return parts.length > 0 ? <span className="muted delivery-note"> · {parts.join(" · ")}</span> : null;
}
