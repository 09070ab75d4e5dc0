import { useEffect } from "react";
import { useQuery } from "urql";
import { Loading } from "../../components/States.tsx";
import { formatSeconds } from "../../format.ts";
import { AttemptList } from "./AttemptList.tsx";
import { type Attempt, type Delivery, EventDetailQuery, type EventNode } from "./eventLog.ts";

/** An opened event: where its delivery goes, what holds it, every attempt, and the payload. */
export function EventDetails({ deploymentId, event, delivery, version }: { deploymentId: string; event: EventNode; delivery?: Delivery; version: number }) {
  const [{ data }, refetch] = useQuery({ query: EventDetailQuery, variables: { id: deploymentId, eventId: event.id } });
  useEffect(() => {
    if (version > 0) refetch({ requestPolicy: "network-only" });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [version, delivery?.attempts, delivery?.status]);
  const attemptLog: Attempt[] | undefined = data?.deployment?.eventLog.nodes[0]?.deliveries.find((d) => d.id === delivery?.id)?.attemptLog;
  return (
    <div className="event-details">
      <div>
        <strong>Event</strong> <code>{event.id}</code> · occurred {formatSeconds(event.occurredAt)} · received {formatSeconds(event.receivedAt)}
      </div>
      {delivery?.url && (
        <div>
          <strong>{delivery.status === "PENDING" ? "Goes to" : "Sent to"}</strong> <code>{delivery.url}</code>
        </div>
      )}
      {delivery?.status === "PENDING" && (
        <div>{delivery.nextAttemptAt ? `Next attempt ${formatSeconds(delivery.nextAttemptAt)}` : "Held: forwarding is paused or disabled, or no Forwarding URL is saved."}</div>
      )}
      {delivery?.lastError && <div className="field-error">Last error: {delivery.lastError}</div>}
      <h3>Attempts</h3>
      {!delivery ? (
        <p className="muted">This trigger was not in the Forwarding Trigger List when the event arrived, so it was not forwarded.</p>
      ) : attemptLog === undefined ? (
        <Loading what="Loading attempts" />
      ) : attemptLog.length === 0 ? (
        <p className="muted">No attempt yet.</p>
      ) : (
        <AttemptList attempts={attemptLog} />
      )}
      <h3>Payload</h3>
      {/* Focusable so that a keyboard can scroll a long payload (it scrolls inside its box). */}
      <pre className="payload" tabIndex={0} role="region" aria-label="Payload">
        {JSON.stringify(event.payload, null, 2)}
      </pre>
    </div>
  );
}
