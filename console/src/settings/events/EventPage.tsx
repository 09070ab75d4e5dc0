import { useEffect } from "react";
import { useQuery } from "urql";
import { LoadError, Loading } from "../../components/States.tsx";
import type { EventFilter } from "../../generated/graphql.ts";
import { EventLogQuery, PAGE, type PageEnd } from "./eventLog.ts";
import { EventRow } from "./EventRow.tsx";

/** One page of the Events table (a <tbody>), read again whenever `version` moves. */
export function EventPage(props: {
  deploymentId: string;
  filter: EventFilter;
  after: string | null;
  version: number;
  canManage: boolean;
  open?: string;
  setOpen(id: string | undefined): void;
  onChanged(): void;
  onLoaded(page: PageEnd): void;
  highlight?: string;
}) {
  const { deploymentId, filter, after, version, canManage, open, setOpen, onChanged, onLoaded } = props;
  const [{ data, fetching, error }, refetch] = useQuery({
    query: EventLogQuery,
    variables: { id: deploymentId, filter, first: PAGE, after },
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

  if (error && !data) {
    return (
      <tbody>
        <tr>
          <td colSpan={5}>
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
          <td colSpan={5}>
            <Loading what="Loading events" />
          </td>
        </tr>
      </tbody>
    );
  }
  return (
    <tbody>
      {(log?.nodes ?? []).map((event) => (
        <EventRow
          key={event.id}
          deploymentId={deploymentId}
          event={event}
          version={version}
          canManage={canManage}
          expanded={open === event.id}
          onToggle={() => setOpen(open === event.id ? undefined : event.id)}
          onChanged={onChanged}
          highlighted={props.highlight === event.id}
        />
      ))}
    </tbody>
  );
}
