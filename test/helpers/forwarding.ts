import { graphql } from "../generated/gql.ts";

/** GraphQL documents the forwarding and delivery stories share. */

export const SaveForwardingSettings = graphql(`
  mutation SaveForwardingSettings($deploymentId: ID!, $input: ForwardingSettingsInput!) {
    saveForwardingSettings(deploymentId: $deploymentId, input: $input) {
      forwardingUrl headerKey headerValueSet triggers { connector trigger } updatedAt
    }
  }
`);

export const SigningSecret = graphql(`
  query SigningSecret($id: ID!) { deployment(id: $id) { id signingSecret } }
`);

export const DeploymentEvents = graphql(`
  query DeploymentEvents($id: ID!, $offset: Int, $limit: Int, $trigger: TriggerRefInput) {
    deployment(id: $id) {
      id
      events(offset: $offset, limit: $limit, trigger: $trigger) {
        id type connector trigger account occurredAt receivedAt payload
        deliveries { id status attempts url }
      }
    }
  }
`);

export const DeploymentDeliveries = graphql(`
  query DeploymentDeliveries($id: ID!, $offset: Int, $limit: Int, $status: DeliveryStatus) {
    deployment(id: $id) {
      id
      deliveries(offset: $offset, limit: $limit, status: $status) {
        id status attempts nextAttemptAt lastStatusCode lastError createdAt completedAt url
        event { id type account }
        attemptLog { number startedAt durationMs statusCode error responseBody }
      }
    }
  }
`);

export const SendTestEvent = graphql(`
  mutation SendTestEvent($deploymentId: ID!, $trigger: TriggerRefInput!) {
    sendTestEvent(deploymentId: $deploymentId, trigger: $trigger) {
      id type connector trigger account payload deliveries { id status }
    }
  }
`);

export const ReplayDelivery = graphql(`
  mutation ReplayDelivery($id: ID!) {
    replayDelivery(id: $id) { id status attempts nextAttemptAt event { id } }
  }
`);
