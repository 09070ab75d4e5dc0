import { Fragment, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { useMutation, useQuery, useSubscription } from "urql";
import { liveState } from "../client.ts";
import { Empty, LoadError, Loading } from "../components/States.tsx";
import { useToast } from "../components/Toasts.tsx";
import { TriggerPicker } from "../components/TriggerPicker.tsx";
import { describeError } from "../errors.ts";
import { formatDate } from "../format.ts";
import { graphql } from "../generated/gql.ts";
import type { SectionProps } from "../pages/DeploymentSettings.tsx";
import { useConnectorCatalog } from "./useConnectorCatalog.ts";

const EventsQuery = graphql(`
  query ConsoleEvents($id: ID!) {
    deployment(id: $id) {
      id
      forwardingSettings { forwardingUrl triggers { connector trigger } }
      events(limit: 50) {
        id type connector trigger account occurredAt receivedAt payload
        deliveries {
          id status url attempts lastStatusCode lastError nextAttemptAt
          attemptLog { number startedAt durationMs statusCode error }
        }
      }
    }
  }
`);

const ForwardedEventsSubscription = graphql(`
  subscription ConsoleForwardedEvents($deploymentId: ID!) {
    forwardedEvents(deploymentId: $deploymentId) {
      id type connector trigger account occurredAt payload
      delivery { id status attempts lastStatusCode }
    }
  }
`);

const DeliveryUpdatesSubscription = graphql(`
  subscription ConsoleDeliveryUpdates($deploymentId: ID!) {
    deliveryUpdates(deploymentId: $deploymentId) { id eventId status attempts lastStatusCode lastError nextAttemptAt }
  }
`);

const SendTestEventMutation = graphql(`
  mutation ConsoleSendTestEvent($deploymentId: ID!, $trigger: TriggerRefInput!) {
    sendTestEvent(deploymentId: $deploymentId, trigger: $trigger) {
      id type connector trigger account occurredAt receivedAt payload
      deliveries { id status url attempts lastStatusCode lastError nextAttemptAt }
    }
  }
`);

const ReplayDeliveryMutation = graphql(`
  mutation ConsoleReplayDelivery($id: ID!) {
    replayDelivery(id: $id) { id status attempts lastStatusCode lastError nextAttemptAt }
  }
`);

interface DeliveryState {
  id: string;
  status: string;
  attempts: number;
  lastStatusCode?: number | null;
  lastError?: string | null;
  nextAttemptAt?: string | null;
  url?: string;
  attemptLog?: { number: number; startedAt: string; durationMs: number; statusCode?: number | null; error?: string | null }[];
}

interface Row {
  id: string;
  type: string;
  account: string;
  occurredAt: string;
  payload: unknown;
  delivery?: DeliveryState;
}

/** A delivery state and when this page learned it (a counter, not a clock). */
interface Stamped {
  state: DeliveryState;
  at: number;
}
let counter = 0;
const tick = () => ++counter;

const statusBadge: Record<string, { label: string; tone: string }> = {
  PENDING: { label: "Pending", tone: "warn" },
  SUCCEEDED: { label: "Succeeded", tone: "ok" },
  FAILED: { label: "Failed", tone: "bad" },
};

/**
 * Events: the recent events (query) merged with the live ones (forwardedEvents) and every change
 * of their deliveries (deliveryUpdates), both over graphql-ws with the session cookie.
 */
export function EventsSection({ deploymentId, canManage }: SectionProps) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: EventsQuery, variables: { id: deploymentId } });
  const [live] = useSubscription({ query: ForwardedEventsSubscription, variables: { deploymentId } }, (previous: Row[] = [], result) => [
    { ...result.forwardedEvents, delivery: result.forwardedEvents.delivery ?? undefined },
    ...previous.filter((row) => row.id !== result.forwardedEvents.id),
  ]);
  const [updates] = useSubscription(
    { query: DeliveryUpdatesSubscription, variables: { deploymentId } },
    (previous: Record<string, Stamped> = {}, result) => ({ ...previous, [result.deliveryUpdates.id]: { state: result.deliveryUpdates, at: tick() } }),
  );
  const [sent, setSent] = useState<Row[]>([]);
  const [replayed, setReplayed] = useState<Record<string, Stamped>>({});
  const [open, setOpen] = useState<string>();
  const [, replay] = useMutation(ReplayDeliveryMutation);
  const connection = useSyncExternalStore(liveState.subscribe, () => liveState.current);
  const toast = useToast();
  const reload = () => refetch({ requestPolicy: "network-only" });
  const dataAt = useMemo(() => tick(), [data]);

  // One row per event: stored ones, then what arrived live or was just sent; newest first. For a
  // delivery, whichever news reached this page last wins: the query, a live update, or a replay.
  const rows = useMemo(() => {
    const byId = new Map<string, Row>();
    for (const event of data?.deployment?.events ?? []) byId.set(event.id, { ...event, delivery: event.deliveries.at(-1) });
    for (const row of [...sent, ...(live.data ?? [])]) if (!byId.has(row.id)) byId.set(row.id, row);
    const list = [...byId.values()].map((row) => {
      if (!row.delivery) return row;
      const local = [updates.data?.[row.delivery.id], replayed[row.delivery.id]]
        .filter((stamped): stamped is Stamped => Boolean(stamped) && stamped!.at > dataAt)
        .sort((a, b) => b.at - a.at)[0];
      return local ? { ...row, delivery: { ...row.delivery, ...local.state } } : row;
    });
    return list.sort((a, b) => b.occurredAt.localeCompare(a.occurredAt));
  }, [data, dataAt, live.data, sent, updates.data, replayed]);

  // An open row's attempt log comes from the query: read it again when its delivery changes.
  const openDelivery = rows.find((row) => row.id === open)?.delivery;
  useEffect(() => {
    if (open) reload();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, openDelivery?.attempts, openDelivery?.status]);

  const onReplay = async (delivery: DeliveryState) => {
    const result = await replay({ id: delivery.id });
    if (result.error) return toast.error(describeError(result.error));
    const state = result.data!.replayDelivery;
    setReplayed((map) => ({ ...map, [state.id]: { state, at: tick() } }));
    toast.info("Delivery queued again with the same webhook-id.");
  };

  return (
    <section className="panel" aria-labelledby="events-title">
      <div className="section-head">
        <h2 id="events-title">Events</h2>
        <span className="live" role="status" data-testid="live-state">
          <span className={`live-dot ${connection === "live" ? "on" : ""}`} aria-hidden="true" />
          {connection === "live" ? "Live" : connection === "connecting" || connection === "idle" ? "Connecting…" : "Offline — reconnecting"}
        </span>
      </div>
      <p className="muted">Events received for this deployment and their deliveries to your Forwarding URL, updated as they happen.</p>
      {data && !data.deployment?.forwardingSettings && (
        <div className="state empty">
          <strong>No Forwarding URL yet</strong>
          <span>Events are recorded, but nothing is sent until you save a Forwarding URL under Trigger Forwarding.</span>
        </div>
      )}
      {canManage && data?.deployment?.forwardingSettings && (
        <SendTestEvent
          deploymentId={deploymentId}
          listed={data.deployment.forwardingSettings.triggers}
          onSent={(row) => setSent((list) => [row, ...list])}
        />
      )}
      {error && !data && <LoadError error={error} retry={reload} />}
      {fetching && !data && <Loading what="Loading events" />}
      {(live.error || updates.error) && (
        <p className="form-error" role="alert">
          Live updates stopped ({describeError(live.error ?? updates.error)}). Reload the page to see new events.
        </p>
      )}
      {data && rows.length === 0 && <Empty title="No events yet">Send a test event, or connect an account and make something happen at the provider.</Empty>}
      {rows.length > 0 && (
        <table className="table events" aria-label="Events">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Type</th>
              <th scope="col">Account</th>
              <th scope="col">Delivery</th>
              <th scope="col">Attempts</th>
              <th scope="col">Response</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const badge = row.delivery ? (statusBadge[row.delivery.status] ?? { label: row.delivery.status, tone: "grey" }) : undefined;
              const expanded = open === row.id;
              return (
                <Fragment key={row.id}>
                  <tr data-event-id={row.id}>
                    <td data-label="Time">{formatDate(row.occurredAt)}</td>
                    <td data-label="Type">
                      <code>{row.type}</code>
                    </td>
                    <td data-label="Account">{row.account}</td>
                    <td data-label="Delivery">{badge ? <span className={`badge ${badge.tone}`}>{badge.label}</span> : <span className="muted">not forwarded</span>}</td>
                    <td data-label="Attempts">{row.delivery?.attempts ?? "—"}</td>
                    <td data-label="Response">{row.delivery?.lastStatusCode ?? (row.delivery?.lastError ? "error" : "—")}</td>
                    <td className="row-actions">
                      <button type="button" className="button small" aria-expanded={expanded} onClick={() => setOpen(expanded ? undefined : row.id)}>
                        {expanded ? "Hide" : "Details"}
                      </button>
                      {canManage && row.delivery && row.delivery.status !== "PENDING" && (
                        <button type="button" className="button small" onClick={() => onReplay(row.delivery!)}>
                          Replay
                        </button>
                      )}
                    </td>
                  </tr>
                  {expanded && (
                    <tr className="details">
                      <td colSpan={7}>
                        <EventDetails row={row} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

function EventDetails({ row }: { row: Row }) {
  const delivery = row.delivery;
  return (
    <div className="event-details">
      <div>
        <strong>Event</strong> <code>{row.id}</code>
      </div>
      {delivery?.url && (
        <div>
          <strong>Sent to</strong> <code>{delivery.url}</code>
        </div>
      )}
      {delivery?.status === "PENDING" && delivery.nextAttemptAt && <div>Next attempt {formatDate(delivery.nextAttemptAt)}</div>}
      {delivery?.lastError && <div className="field-error">Last error: {delivery.lastError}</div>}
      <h3>Attempts</h3>
      {!delivery ? (
        <p className="muted">This trigger was not in the Forwarding Trigger List when the event arrived, so it was not forwarded.</p>
      ) : delivery.attemptLog === undefined ? (
        <Loading what="Loading attempts" />
      ) : delivery.attemptLog.length === 0 ? (
        <p className="muted">No attempt yet.</p>
      ) : (
        <table className="table compact" aria-label="Attempts">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Started</th>
              <th scope="col">Took</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {delivery.attemptLog.map((attempt) => (
              <tr key={attempt.number}>
                <td data-label="#">{attempt.number}</td>
                <td data-label="Started">{formatDate(attempt.startedAt)}</td>
                <td data-label="Took">{attempt.durationMs} ms</td>
                <td data-label="Result">{attempt.statusCode ? `HTTP ${attempt.statusCode}` : (attempt.error ?? "no answer")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Payload</h3>
      <pre className="payload">{JSON.stringify(row.payload, null, 2)}</pre>
    </div>
  );
}

function SendTestEvent({ deploymentId, listed, onSent }: { deploymentId: string; listed: { connector: string; trigger: string }[]; onSent(row: Row): void }) {
  const catalog = useConnectorCatalog();
  const [pick, setPick] = useState(() => listed[0] ?? { connector: "", trigger: "" });
  const [sending, send] = useMutation(SendTestEventMutation);
  const toast = useToast();
  const submit = async (ref: { connector: string; trigger: string }) => {
    // Only the two input fields: a ref read from a query result also carries __typename.
    const result = await send({ deploymentId, trigger: { connector: ref.connector, trigger: ref.trigger } });
    if (result.error) return toast.error(describeError(result.error));
    const event = result.data!.sendTestEvent;
    onSent({ ...event, delivery: event.deliveries.at(-1) });
  };
  return (
    <div className="subsection test-events">
      <h3>Send test event</h3>
      <p className="muted">The trigger's sample payload goes through the real pipeline (account “test”): stored, signed, sent and retried.</p>
      {listed.length > 0 && (
        <div className="actions" aria-label="Test events for the Forwarding Trigger List">
          {listed.map((ref) => (
            <button key={`${ref.connector}.${ref.trigger}`} type="button" className="button small" disabled={sending.fetching} onClick={() => submit(ref)}>
              Send test event: {catalog.label(ref.connector, ref.trigger)}
            </button>
          ))}
        </div>
      )}
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (pick.connector && pick.trigger) void submit(pick);
        }}
      >
        <TriggerPicker connectors={catalog.connectors} connector={pick.connector} trigger={pick.trigger} onChange={setPick} />
        <button type="submit" className="button primary" disabled={sending.fetching || !pick.trigger}>
          {sending.fetching ? "Sending…" : "Send test event"}
        </button>
      </form>
    </div>
  );
}
