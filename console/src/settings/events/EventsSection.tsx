import { useMemo, useState } from "react";
import { Empty } from "../../components/States.tsx";
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
 * Events: the event log in keyset pages ("Load more"), filtered on the server, each event with its
 * delivery and every attempt. Live: a new event or any delivery change (forwardedEvents,
 * deliveryUpdates over graphql-ws) reloads the pages shown, so nothing here needs a refresh.
 */
export function EventsSection({ deploymentId, canManage }: SectionProps) {
  const [filter, setFilter] = useState<Filter>({});
  // One cursor per page shown: null is the first page; "Load more" appends the last endCursor.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [open, setOpen] = useState<string>();
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
        <LiveStatus />
      </div>
      <p className="muted">Events received for this deployment and their deliveries to your Forwarding URL, newest first, updated as they happen.</p>
      {canManage && <SendTestEvent deploymentId={deploymentId} onSent={live.bump} />}
      {live.error && (
        <p className="form-error" role="alert">
          Live updates stopped ({describeError(live.error)}). Reload the page to see new events.
        </p>
      )}
      <EventFilters onApply={apply} />
      {canManage && <RetryFailedSince deploymentId={deploymentId} onDone={live.bump} />}
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
      />
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
