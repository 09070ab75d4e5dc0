import { useMemo, useState } from "react";
import { Dialog } from "../../components/Dialog.tsx";
import { Empty } from "../../components/States.tsx";
import { ForwardingHealth } from "../health.tsx";
import { useSearchParam } from "../../router.tsx";
import { describeError } from "../../errors.ts";
import type { DeliveryStatus, EventFilter } from "../../generated/graphql.ts";
import type { SectionProps } from "../types.ts";
import { EventFilters } from "./EventFilters.tsx";
import type { Filter, PageEnd } from "./eventLog.ts";
import { EventTable } from "./EventTable.tsx";
import { LiveStatus } from "./LiveStatus.tsx";
import { RetryFailedSince } from "./RetryFailedSince.tsx";
import { SendTestEvent } from "./SendTestEvent.tsx";
import { useLiveReload } from "./useLiveReload.ts";

/** datetime-local gives local wall-clock text; the API wants an instant. */
const toInstant = (local: string | undefined) => (local ? new Date(local).toISOString() : undefined);

/**
 * Events: the event log first (one line per event, relative times, the delivery's status with its
 * next attempt), in keyset pages ("Load more"), filtered on the server, each event with its
 * delivery and every attempt. Filters and bulk retry fold away above it; test events are sent
 * from a dialog, and the event sent is then marked and opened in the log. Live: a new event or any delivery change (forwardedEvents,
 * deliveryUpdates over graphql-ws) reloads the pages shown, so nothing here needs a refresh.
 */
export function EventsSection({ deploymentId, canManage, health }: SectionProps) {
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState<string>();
  // "Open in Events" (a connection's recent events) links here with ?event=<id>: that event, opened.
  const linked = useSearchParam("event") ?? undefined;
  const [filter, setFilter] = useState<Filter>(() => (linked ? { id: linked } : {}));
  // One cursor per page shown: null is the first page; "Load more" appends the last endCursor.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [open, setOpen] = useState<string | undefined>(linked);
  const live = useLiveReload(deploymentId);
  const apiFilter = useMemo<EventFilter>(
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

  const [pageEnds, setPageEnds] = useState<Record<number, PageEnd>>({});
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
        <LiveStatus stopped={Boolean(live.error)} />
        {canManage && (
          <button type="button" className="button small primary push-right" onClick={() => setSending(true)}>
            Send a test event…
          </button>
        )}
      </div>
      <ForwardingHealth health={health} deploymentId={deploymentId} canManage={canManage} />
      {live.error && (
        <p className="form-error" role="alert">
          Live updates stopped ({describeError(live.error)}). Reload the page to see new events.
        </p>
      )}
      {sent && (
        <p className="sent-note" role="status" data-testid="sent-test-event">
          Test event <code>{sent}</code> sent: it is the highlighted row, its details open, updated as it is delivered.
        </p>
      )}
      <div className="event-tools">
        <details open={Object.values(filter).some(Boolean) || undefined}>
          <summary>Filters</summary>
          <EventFilters onApply={apply} initial={filter} />
        </details>
        {canManage && (
          <details>
            <summary>Retry failed deliveries</summary>
            <RetryFailedSince deploymentId={deploymentId} onDone={live.bump} />
          </details>
        )}
      </div>
      <EventTable
        deploymentId={deploymentId}
        filter={apiFilter}
        cursors={cursors}
        version={live.version}
        canManage={canManage}
        open={open}
        setOpen={setOpen}
        onChanged={live.bump}
        onPageLoaded={(index, page) => setPageEnds((ends) => ({ ...ends, [index]: page }))}
        highlight={sent}
      />
      {last && total === 0 && <Empty title="No events">{Object.values(filter).some(Boolean) ? "No event matches these filters." : "Send a test event, or connect an account and make something happen at the provider."}</Empty>}
      {last?.hasNextPage && last.endCursor && (
        <div className="actions load-more">
          <button type="button" className="button" onClick={() => setCursors((list) => [...list, last.endCursor!])}>
            Load more
          </button>
        </div>
      )}
      <Dialog open={sending} title="Send a test event" onClose={() => setSending(false)}>
        <SendTestEvent
          deploymentId={deploymentId}
          onSent={(eventId) => {
            // Show what was sent: the dialog closes on the log, the new event marked and opened.
            setSending(false);
            setSent(eventId);
            setOpen(eventId);
            live.bump();
          }}
        />
      </Dialog>
    </section>
  );
}
