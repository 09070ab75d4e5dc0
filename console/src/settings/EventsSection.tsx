import { Fragment, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { type CombinedError, useMutation, useQuery, useSubscription } from "urql";
import type { ResultOf } from "@graphql-typed-document-node/core";
import { liveState } from "../client.ts";
import { Empty, LoadError, Loading } from "../components/States.tsx";
import { useToast } from "../components/Toasts.tsx";
import { TriggerPicker } from "../components/TriggerPicker.tsx";
import { describeError } from "../errors.ts";
import { formatSeconds } from "../format.ts";
import { graphql } from "../generated/gql.ts";
import type { DeliveryStatus } from "../generated/graphql.ts";
import type { SectionProps } from "./types.ts";
import { useConnectorCatalog } from "./useConnectorCatalog.ts";

const EventLogQuery = graphql(`
  query ConsoleEventLog($id: ID!, $filter: EventFilter, $first: Int, $after: String) {
    deployment(id: $id) {
      id
      forwardingSettings { forwardingUrl status triggers { connector trigger } }
      eventLog(filter: $filter, first: $first, after: $after) {
        nodes {
          id type connector trigger account occurredAt receivedAt payload
          deliveries { id status url attempts lastStatusCode lastError nextAttemptAt }
        }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`);

// An open event's attempts, read when it is opened (and again on every change): a page of 25
// events with every attempt's headers and body would be far past the API's cost limit.
const EventDetailQuery = graphql(`
  query ConsoleEventDetail($id: ID!, $eventId: ID!) {
    deployment(id: $id) {
      id
      eventLog(filter: { id: $eventId }, first: 1) {
        nodes {
          id
          deliveries {
            id
            attemptLog { number url startedAt durationMs statusCode error responseBody requestHeaders { name value } }
          }
        }
      }
    }
  }
`);

const ForwardedEventsSubscription = graphql(`
  subscription ConsoleForwardedEvents($deploymentId: ID!, $after: ID) {
    forwardedEvents(deploymentId: $deploymentId, after: $after) { id }
  }
`);

const DeliveryUpdatesSubscription = graphql(`
  subscription ConsoleDeliveryUpdates($deploymentId: ID!) {
    deliveryUpdates(deploymentId: $deploymentId) { id eventId status attempts }
  }
`);

const SendTestEventMutation = graphql(`
  mutation ConsoleSendTestEvent($deploymentId: ID!, $trigger: TriggerRefInput!) {
    sendTestEvent(deploymentId: $deploymentId, trigger: $trigger) { id }
  }
`);

const ReplayDeliveryMutation = graphql(`
  mutation ConsoleReplayDelivery($id: ID!) { replayDelivery(id: $id) { id status } }
`);

const RetryDeliveryMutation = graphql(`
  mutation ConsoleRetryDelivery($id: ID!) { retryDelivery(id: $id) { id status } }
`);

const CancelDeliveryMutation = graphql(`
  mutation ConsoleCancelDelivery($id: ID!) { cancelDelivery(id: $id) { id status } }
`);

const RetryFailedMutation = graphql(`
  mutation ConsoleRetryFailed($deploymentId: ID!, $since: DateTime!) { retryFailedDeliveries(deploymentId: $deploymentId, since: $since) }
`);

type EventNode = NonNullable<ResultOf<typeof EventLogQuery>["deployment"]>["eventLog"]["nodes"][number];
type Delivery = EventNode["deliveries"][number];
type Attempt = NonNullable<ResultOf<typeof EventDetailQuery>["deployment"]>["eventLog"]["nodes"][number]["deliveries"][number]["attemptLog"][number];

const PAGE = 25;

const statusBadge: Record<string, { label: string; tone: string }> = {
  PENDING: { label: "Pending", tone: "warn" },
  SUCCEEDED: { label: "Succeeded", tone: "ok" },
  FAILED: { label: "Failed", tone: "bad" },
  CANCELLED: { label: "Cancelled", tone: "grey" },
};

interface Filter {
  status?: string;
  connector?: string;
  trigger?: string;
  account?: string;
  since?: string;
  until?: string;
  id?: string;
}

/** datetime-local gives local wall-clock text; the API wants an instant. */
const toInstant = (local: string | undefined) => (local ? new Date(local).toISOString() : undefined);

/**
 * Events: the event log in keyset pages ("Load more"), filtered on the server, each event with its
 * delivery and every attempt. Live: a new event or any delivery change (forwardedEvents,
 * deliveryUpdates over graphql-ws) reloads the pages shown, so nothing here needs a refresh.
 */
export function EventsSection({ deploymentId, canManage }: SectionProps) {
  const [draft, setDraft] = useState<Filter>({});
  const [filter, setFilter] = useState<Filter>({});
  // One cursor per page shown: null is the first page; "Load more" appends the last endCursor.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [version, setVersion] = useState(0);
  const [open, setOpen] = useState<string>();
  const connection = useSyncExternalStore(liveState.subscribe, () => liveState.current);
  const catalog = useConnectorCatalog();
  const apiFilter = useMemo(
    () => ({
      status: (filter.status || undefined) as DeliveryStatus | undefined,
      connector: filter.connector || undefined,
      trigger: filter.trigger || undefined,
      account: filter.account || undefined,
      id: filter.id || undefined,
      since: toInstant(filter.since),
      until: toInstant(filter.until),
    }),
    [filter],
  );

  // Live: coalesce bursts into one reload of the pages shown.
  const bump = useMemo(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        setVersion((v) => v + 1);
      }, 300);
    };
  }, []);
  const [live] = useSubscription({ query: ForwardedEventsSubscription, variables: { deploymentId } }, (_prev: number | undefined, _result) => (bump(), Date.now()));
  const [updates] = useSubscription({ query: DeliveryUpdatesSubscription, variables: { deploymentId } }, (_prev: number | undefined, _result) => (bump(), Date.now()));

  const [pageEnds, setPageEnds] = useState<Record<number, { hasNextPage: boolean; endCursor?: string | null; count: number }>>({});
  const last = pageEnds[cursors.length - 1];
  const total = Object.values(pageEnds).reduce((n, page) => n + page.count, 0);
  const apply = (next: Filter) => {
    setFilter(next);
    setCursors([null]);
    setPageEnds({});
    setOpen(undefined);
  };

  return (
    <section className="panel" aria-labelledby="events-title">
      <div className="section-head">
        <h2 id="events-title">Events</h2>
        <span className="live" role="status" data-testid="live-state">
          <span className={`live-dot ${connection === "live" ? "on" : ""}`} aria-hidden="true" />
          {connection === "live"
            ? "Live"
            : connection === "connecting" || connection === "idle"
              ? "Connecting…"
              : connection === "paused"
                ? "Paused — resuming shortly"
                : "Offline — reconnecting"}
        </span>
      </div>
      <p className="muted">Events received for this deployment and their deliveries to your Forwarding URL, newest first, updated as they happen.</p>
      {canManage && <SendTestEvent deploymentId={deploymentId} onSent={bump} />}
      {(live.error || updates.error) && (
        <p className="form-error" role="alert">
          Live updates stopped ({describeError(live.error ?? updates.error)}). Reload the page to see new events.
        </p>
      )}
      <form
        className="filters"
        aria-label="Filter events"
        onSubmit={(event) => {
          event.preventDefault();
          apply(draft);
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
              apply({});
            }}
          >
            Clear
          </button>
        </div>
      </form>
      {canManage && <RetryFailedSince deploymentId={deploymentId} onDone={bump} />}
      <table className="table events" aria-label="Events">
        <thead>
          <tr>
            <th scope="col">Received</th>
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
        {cursors.map((after, index) => (
          <EventPage
            key={`${JSON.stringify(apiFilter)}:${after ?? "first"}`}
            deploymentId={deploymentId}
            filter={apiFilter}
            after={after}
            version={version}
            canManage={canManage}
            open={open}
            setOpen={setOpen}
            onChanged={bump}
            onLoaded={(page) => setPageEnds((ends) => ({ ...ends, [index]: page }))}
          />
        ))}
      </table>
      {last && total === 0 && <Empty title="No events">{Object.values(filter).some(Boolean) ? "No event matches these filters." : "Send a test event, or connect an account and make something happen at the provider."}</Empty>}
      {last?.hasNextPage && last.endCursor && (
        <div className="actions load-more">
          <button type="button" className="button" onClick={() => setCursors((list) => [...list, last.endCursor!])}>
            Load more
          </button>
        </div>
      )}
    </section>
  );
}

function EventPage(props: {
  deploymentId: string;
  filter: Record<string, string | undefined>;
  after: string | null;
  version: number;
  canManage: boolean;
  open?: string;
  setOpen(id: string | undefined): void;
  onChanged(): void;
  onLoaded(page: { hasNextPage: boolean; endCursor?: string | null; count: number }): void;
}) {
  const { deploymentId, filter, after, version, canManage, open, setOpen, onChanged, onLoaded } = props;
  const [{ data, fetching, error }, refetch] = useQuery({
    query: EventLogQuery,
    variables: { id: deploymentId, filter: filter as never, first: PAGE, after },
  });
  useEffect(() => {
    if (version > 0) refetch({ requestPolicy: "network-only" });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [version]);
  const log = data?.deployment?.eventLog;
  useEffect(() => {
    if (log) onLoaded({ hasNextPage: log.pageInfo.hasNextPage, endCursor: log.pageInfo.endCursor, count: log.nodes.length });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [log]);
  const [, replay] = useMutation(ReplayDeliveryMutation);
  const [, retry] = useMutation(RetryDeliveryMutation);
  const [, cancel] = useMutation(CancelDeliveryMutation);
  const toast = useToast();
  const act = async (run: Promise<{ error?: CombinedError }>, done: string) => {
    const result = await run;
    if (result.error) return toast.error(describeError(result.error));
    toast.info(done);
    onChanged();
  };

  if (error && !data) {
    return (
      <tbody>
        <tr>
          <td colSpan={7}>
            <LoadError error={error} retry={() => refetch({ requestPolicy: "network-only" })} />
          </td>
        </tr>
      </tbody>
    );
  }
  if (fetching && !data) {
    return (
      <tbody>
        <tr>
          <td colSpan={7}>
            <Loading what="Loading events" />
          </td>
        </tr>
      </tbody>
    );
  }
  return (
    <tbody>
      {(log?.nodes ?? []).map((event) => {
        const delivery = event.deliveries.at(-1);
        const badge = delivery ? (statusBadge[delivery.status] ?? { label: delivery.status, tone: "grey" }) : undefined;
        const expanded = open === event.id;
        return (
          <Fragment key={event.id}>
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
                <button type="button" className="button small" aria-expanded={expanded} onClick={() => setOpen(expanded ? undefined : event.id)}>
                  {expanded ? "Hide" : "Details"}
                </button>
                {canManage && delivery && (delivery.status === "PENDING" || delivery.status === "FAILED") && (
                  <button type="button" className="button small" onClick={() => act(retry({ id: delivery.id }), "Retrying now.")}>
                    Retry now
                  </button>
                )}
                {canManage && delivery?.status === "PENDING" && (
                  <button type="button" className="button small danger" onClick={() => act(cancel({ id: delivery.id }), "Delivery cancelled: it will not be attempted again.")}>
                    Cancel
                  </button>
                )}
                {canManage && delivery?.status === "SUCCEEDED" && (
                  <button type="button" className="button small" onClick={() => act(replay({ id: delivery.id }), "Delivery queued again with the same webhook-id.")}>
                    Replay
                  </button>
                )}
              </td>
            </tr>
            {expanded && (
              <tr className="details">
                <td colSpan={7}>
                  <EventDetails deploymentId={deploymentId} event={event} delivery={delivery} version={version} />
                </td>
              </tr>
            )}
          </Fragment>
        );
      })}
    </tbody>
  );
}

function EventDetails({ deploymentId, event, delivery, version }: { deploymentId: string; event: EventNode; delivery?: Delivery; version: number }) {
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
        <ol className="attempts" aria-label="Attempts">
          {attemptLog.map((attempt) => (
            <li key={attempt.number} className="attempt" data-attempt={attempt.number}>
              <div className="attempt-head">
                <strong>#{attempt.number}</strong> {formatSeconds(attempt.startedAt)} · {attempt.durationMs} ms ·{" "}
                <span className={`badge ${attempt.statusCode && attempt.statusCode < 300 ? "ok" : "bad"}`}>
                  {attempt.statusCode ? `HTTP ${attempt.statusCode}` : (attempt.error ?? "no answer")}
                </span>
                {attempt.url && <code className="attempt-url">{attempt.url}</code>}
              </div>
              <details>
                <summary>Request headers</summary>
                <dl className="headers">
                  {attempt.requestHeaders.map((header) => (
                    <Fragment key={header.name}>
                      <dt>{header.name}</dt>
                      <dd>
                        <code>{header.value}</code>
                      </dd>
                    </Fragment>
                  ))}
                </dl>
              </details>
              {attempt.responseBody !== null && attempt.responseBody !== undefined && (
                <details open={attempt.number === attemptLog.length}>
                  <summary>Response body</summary>
                  <pre className="payload" tabIndex={0} role="region" aria-label={`Response body of attempt ${attempt.number}`}>
                    {attempt.responseBody || "(empty)"}
                  </pre>
                </details>
              )}
            </li>
          ))}
        </ol>
      )}
      <h3>Payload</h3>
      {/* Focusable so that a keyboard can scroll a long payload (it scrolls inside its box). */}
      <pre className="payload" tabIndex={0} role="region" aria-label="Payload">
        {JSON.stringify(event.payload, null, 2)}
      </pre>
    </div>
  );
}

function RetryFailedSince({ deploymentId, onDone }: { deploymentId: string; onDone(): void }) {
  const [since, setSince] = useState("");
  const [state, run] = useMutation(RetryFailedMutation);
  const toast = useToast();
  return (
    <form
      className="inline-form retry-failed"
      aria-label="Retry failed deliveries"
      onSubmit={async (event) => {
        event.preventDefault();
        if (!since) return;
        const result = await run({ deploymentId, since: new Date(since).toISOString() });
        if (result.error) return toast.error(describeError(result.error));
        const count = result.data!.retryFailedDeliveries;
        toast.info(count === 0 ? "No failed delivery since then." : `${count} failed ${count === 1 ? "delivery" : "deliveries"} retrying now.`);
        onDone();
      }}
    >
      <label>
        Retry every failed delivery since
        <input type="datetime-local" step={1} required value={since} onChange={(e) => setSince(e.target.value)} />
      </label>
      <button type="submit" className="button small" disabled={state.fetching || !since}>
        Retry failed
      </button>
    </form>
  );
}

function SendTestEvent({ deploymentId, onSent }: { deploymentId: string; onSent(): void }) {
  const catalog = useConnectorCatalog();
  const [{ data }] = useQuery({ query: EventLogQuery, variables: { id: deploymentId, first: 1 } });
  const listed = data?.deployment?.forwardingSettings?.triggers ?? [];
  const [pick, setPick] = useState<{ connector: string; trigger: string }>({ connector: "", trigger: "" });
  const [sending, send] = useMutation(SendTestEventMutation);
  const toast = useToast();
  const submit = async (ref: { connector: string; trigger: string }) => {
    // Only the two input fields: a ref read from a query result also carries __typename.
    const result = await send({ deploymentId, trigger: { connector: ref.connector, trigger: ref.trigger } });
    if (result.error) return toast.error(describeError(result.error));
    onSent();
  };
  return (
    <div className="subsection test-events">
      <h3>Send test event</h3>
      <p className="muted">
        The trigger's sample payload goes through the real pipeline (account “test”): stored, signed, sent and retried.
        {data && !data.deployment?.forwardingSettings && " No Forwarding URL is saved yet: it is held until you save one."}
      </p>
      {listed.length > 0 && (
        <div className="actions" role="group" aria-label="Test events for the Forwarding Trigger List">
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
