import type { ResultOf } from "@graphql-typed-document-node/core";
import { graphql } from "../../generated/gql.ts";
import type { DeliveryStatus } from "../../generated/graphql.ts";

/** A page of the event log, newest first, filtered on the server; with the Forwarding settings it is sent under. */
export const EventLogQuery = graphql(`
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

export type EventNode = NonNullable<ResultOf<typeof EventLogQuery>["deployment"]>["eventLog"]["nodes"][number];
export type Delivery = EventNode["deliveries"][number];

// An open event's attempts, read when it is opened (and again on every change): a page of 25
// events with every attempt's headers and body would be far past the API's cost limit.
export const EventDetailQuery = graphql(`
  query ConsoleEventDetail($id: ID!, $eventId: ID!) {
    deployment(id: $id) {
      id
      eventLog(filter: { id: $eventId }, first: 1) {
        nodes {
          id
          deliveries {
            id
            attemptLog { number url startedAt durationMs statusCode error responseBody retryAfterSeconds requestHeaders { name value } }
          }
        }
      }
    }
  }
`);

export type Attempt = NonNullable<ResultOf<typeof EventDetailQuery>["deployment"]>["eventLog"]["nodes"][number]["deliveries"][number]["attemptLog"][number];

/** Events per page ("Load more" reads the next one). */
export const PAGE = 25;

export const statusBadge: Record<DeliveryStatus, { label: string; tone: string }> = {
  PENDING: { label: "Pending", tone: "warn" },
  SUCCEEDED: { label: "Succeeded", tone: "ok" },
  FAILED: { label: "Failed", tone: "bad" },
  CANCELLED: { label: "Cancelled", tone: "grey" },
};

/** The badge of a delivery status (an unknown one, from a newer server, is shown as it is). */
export const badgeOf = (status: string) => statusBadge[status as DeliveryStatus] ?? { label: status, tone: "grey" };

/** The filter form's values, as typed (datetime-local text for the dates). */
export interface Filter {
  status?: string;
  connector?: string;
  trigger?: string;
  account?: string;
  since?: string;
  until?: string;
  id?: string;
}

/** The end of a page once it has loaded: whether another follows, and how many events it holds. */
export type PageEnd = Pick<NonNullable<ResultOf<typeof EventLogQuery>["deployment"]>["eventLog"]["pageInfo"], "hasNextPage" | "endCursor"> & { count: number };
