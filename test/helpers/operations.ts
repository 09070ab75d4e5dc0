import { graphql } from "../generated/gql.ts";

/** GraphQL documents of the delivery-operations stories: steering, the event log, delivery health. */

export const PauseForwarding = graphql(`
  mutation PauseForwarding($deploymentId: ID!) { pauseForwarding(deploymentId: $deploymentId) { status disabledReason statusChangedAt } }
`);

export const ResumeForwarding = graphql(`
  mutation ResumeForwarding($deploymentId: ID!) { resumeForwarding(deploymentId: $deploymentId) { status disabledReason } }
`);

export const ForwardingStatusQuery = graphql(`
  query ForwardingStatus($id: ID!) { deployment(id: $id) { id forwardingSettings { forwardingUrl status disabledReason failingSince lastSuccessAt } } }
`);

export const RetryDelivery = graphql(`
  mutation RetryDelivery($id: ID!) { retryDelivery(id: $id) { id status attempts nextAttemptAt url } }
`);

export const CancelDelivery = graphql(`
  mutation CancelDelivery($id: ID!) { cancelDelivery(id: $id) { id status attempts nextAttemptAt completedAt } }
`);

export const RetryFailedDeliveries = graphql(`
  mutation RetryFailedDeliveries($deploymentId: ID!, $since: DateTime!) { retryFailedDeliveries(deploymentId: $deploymentId, since: $since) }
`);

export const EventDelivery = graphql(`
  query EventDelivery($id: ID!, $eventId: ID!) {
    deployment(id: $id) {
      id
      eventLog(filter: { id: $eventId }, first: 1) {
        nodes {
          id
          deliveries {
            id status attempts nextAttemptAt url lastStatusCode
            attemptLog { number url startedAt durationMs statusCode error responseBody requestHeaders { name value } }
          }
        }
      }
    }
  }
`);

export const EventLog = graphql(`
  query EventLog($id: ID!, $filter: EventFilter, $first: Int, $after: String) {
    deployment(id: $id) {
      id
      eventLog(filter: $filter, first: $first, after: $after) {
        edges { cursor node { id connector trigger account receivedAt } }
        nodes { id deliveries { status } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`);

export const DeliveryStatsQuery = graphql(`
  query DeliveryStats($id: ID!, $hours: Int) {
    deployment(id: $id) {
      id
      deliveryStats(hours: $hours) {
        hours succeeded failed pending cancelled successRate p50Ms p95Ms oldestPendingAt queueDepth
        attempts attemptsSucceeded attemptsFailed attemptSuccessRate
        failingEndpoint { url consecutiveFailures since lastAttemptAt lastStatusCode lastError nextAttemptAt }
        buckets { start succeeded failed pending p50Ms p95Ms attemptsSucceeded attemptsFailed }
      }
    }
  }
`);
