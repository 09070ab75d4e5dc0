import type { EventFilter } from "../../generated/graphql.ts";
import type { PageEnd } from "./eventLog.ts";
import { EventPage } from "./EventPage.tsx";

/** The Events table: its head, then one <tbody> per page shown. */
export function EventTable(props: {
  deploymentId: string;
  filter: EventFilter;
  cursors: (string | null)[];
  version: number;
  canManage: boolean;
  open?: string;
  setOpen(id: string | undefined): void;
  onChanged(): void;
  onPageLoaded(index: number, page: PageEnd): void;
  highlight?: string;
}) {
  const { cursors, filter, onPageLoaded, ...page } = props;
  return (
    <table className="table events" aria-label="Events">
      <thead>
        <tr>
          <th scope="col">Received</th>
          <th scope="col">Type</th>
          <th scope="col">Account</th>
          <th scope="col">Delivery</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      {cursors.map((after, index) => (
        <EventPage key={`${JSON.stringify(filter)}:${after ?? "first"}`} {...page} filter={filter} after={after} onLoaded={(end) => onPageLoaded(index, end)} />
      ))}
    </table>
  );
}
