import type { Operator } from "../helpers/operators.ts";
import { ok, type TestApp } from "../helpers/testApp.ts";

export interface SubscriptionView {
  id: string;
  resource: string;
  events: string[];
  status: "PENDING" | "ACTIVE" | "FAILED" | "DELETED";
  providerId: string | null;
  expiresAt: string | null;
  lastRenewedAt: string | null;
  lastError: string | null;
  nextAttemptAt: string | null;
}

/** The connection's subscriptions as GraphQL shows them, newest first. */
export async function accountSubscriptions(app: TestApp, operator: Pick<Operator, "token" | "deploymentId">, accountId: string): Promise<SubscriptionView[]> {
  const data = ok(
    await app.gql<{ deployment: { connectedAccounts: Array<{ id: string; subscriptions: SubscriptionView[] }> } }, { id: string }>(
      `query($id: ID!) { deployment(id: $id) { connectedAccounts { id subscriptions { id resource events status providerId expiresAt lastRenewedAt lastError nextAttemptAt } } } }`,
      { id: operator.deploymentId },
      { token: operator.token },
    ),
  );
  return data.deployment.connectedAccounts.find((a) => a.id === accountId)?.subscriptions ?? [];
}

export interface StoredEvent {
  id: string;
  connector: string;
  trigger: string;
  account: string;
  payload: unknown;
}

export async function storedEvents(app: TestApp, operator: Pick<Operator, "token" | "deploymentId">): Promise<StoredEvent[]> {
  const data = ok(
    await app.gql<{ deployment: { events: StoredEvent[] } }, { id: string }>(
      `query($id: ID!) { deployment(id: $id) { events(limit: 100) { id connector trigger account payload } } }`,
      { id: operator.deploymentId },
      { token: operator.token },
    ),
  );
  return data.deployment.events;
}
