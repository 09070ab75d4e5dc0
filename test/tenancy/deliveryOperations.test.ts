import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { createOperator, joinByInvitation, type Operator, SignUp } from "../helpers/operators.ts";
import { everyone, expectTenancy, type Who } from "../helpers/tenancy.ts";
import { type Caller, errorCode, type GraphQLResult, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The delivery-operations surface (event log, delivery health, steering) as each kind of caller:
 * members read, owners/admins and the deployment's own key steer, everyone else is refused —
 * someone else's delivery is NOT_FOUND, someone else's deployment FORBIDDEN, nobody UNAUTHENTICATED.
 */

const Q = {
  eventLog: graphql(`query TEventLog($id: ID!) { deployment(id: $id) { eventLog(first: 5) { nodes { id } pageInfo { hasNextPage } } } }`),
  deliveryStats: graphql(`query TDeliveryStats($id: ID!) { deployment(id: $id) { deliveryStats(hours: 2) { pending buckets { start } } } }`),
  forwardingStatus: graphql(`query TForwardingStatus($id: ID!) { deployment(id: $id) { forwardingSettings { status disabledReason } } }`),
  retryDelivery: graphql(`mutation TRetryDelivery($id: ID!) { retryDelivery(id: $id) { id } }`),
  cancelDelivery: graphql(`mutation TCancelDelivery($id: ID!) { cancelDelivery(id: $id) { id } }`),
  retryFailed: graphql(`mutation TRetryFailed($id: ID!) { retryFailedDeliveries(deploymentId: $id, since: "2020-01-01T00:00:00Z") }`),
  pause: graphql(`mutation TPause($id: ID!) { pauseForwarding(deploymentId: $id) { status } }`),
  resume: graphql(`mutation TResume($id: ID!) { resumeForwarding(deploymentId: $id) { status } }`),
  logIn: graphql(`mutation TOpsLogIn($e: String!) { logIn(email: $e, password: "a fine password") { token } }`),
};

let app: TestApp;
let owner: Operator;
let callers: Record<Who, Caller>;

beforeAll(async () => {
  // No worker: deliveries stay PENDING, so retry and cancel always have something to act on.
  app = await startTestApp();
  owner = await createOperator(app, "Owner");
  const other = await createOperator(app, "Other");
  const memberEmail = `member-${Date.now()}@example.com`;
  const memberToken = ok(await app.gql(SignUp, { email: memberEmail, password: "a fine password", name: "M" })).signUp.token;
  await joinByInvitation(app.gql, owner.token, owner.organizationId, { email: memberEmail, token: memberToken });
  callers = {
    owner: { token: owner.token },
    member: { token: ok(await app.gql(Q.logIn, { e: memberEmail })).logIn.token },
    ownKey: { apiKey: owner.apiKey },
    otherUser: { token: other.token },
    otherKey: { apiKey: other.apiKey },
    nobody: {},
  };
  ok(await app.gql(SaveForwardingSettings, { deploymentId: owner.deploymentId, input: { forwardingUrl: "http://127.0.0.1:9/hook", triggers: [] } }, { token: owner.token }));
});
afterAll(() => app.close());

/** A fresh PENDING delivery of the owner's deployment. */
async function pendingDelivery(): Promise<string> {
  const sent = ok(await app.gql(SendTestEvent, { deploymentId: owner.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { token: owner.token }));
  return sent.sendTestEvent.deliveries[0].id;
}

type Row = [string, (caller: Caller) => Promise<GraphQLResult<unknown>>, Who[], "FORBIDDEN" | "NOT_FOUND"];
const rows: Row[] = [
  ["deployment.eventLog", (c) => app.gql(Q.eventLog, { id: owner.deploymentId }, c), ["owner", "member", "ownKey"], "FORBIDDEN"],
  ["deployment.deliveryStats", (c) => app.gql(Q.deliveryStats, { id: owner.deploymentId }, c), ["owner", "member", "ownKey"], "FORBIDDEN"],
  ["forwardingSettings.status", (c) => app.gql(Q.forwardingStatus, { id: owner.deploymentId }, c), ["owner", "member", "ownKey"], "FORBIDDEN"],
  ["retryDelivery", async (c) => app.gql(Q.retryDelivery, { id: await pendingDelivery() }, c), ["owner", "ownKey"], "NOT_FOUND"],
  ["cancelDelivery", async (c) => app.gql(Q.cancelDelivery, { id: await pendingDelivery() }, c), ["owner", "ownKey"], "NOT_FOUND"],
  ["retryFailedDeliveries", (c) => app.gql(Q.retryFailed, { id: owner.deploymentId }, c), ["owner", "ownKey"], "FORBIDDEN"],
  ["pauseForwarding", (c) => app.gql(Q.pause, { id: owner.deploymentId }, c), ["owner", "ownKey"], "FORBIDDEN"],
  ["resumeForwarding", (c) => app.gql(Q.resume, { id: owner.deploymentId }, c), ["owner", "ownKey"], "FORBIDDEN"],
];

describe.each(rows)("%s", (_name, run, allowed, denied) => {
  test.each(everyone)("as %s", async (who) => {
    expectTenancy(await run(callers[who]), who, allowed, denied);
  });
});

test("a delivery id that does not exist is NOT_FOUND, like someone else's", async () => {
  expect(errorCode(await app.gql(Q.retryDelivery, { id: "dlv_nope" }, callers.owner))).toBe("NOT_FOUND");
  expect(errorCode(await app.gql(Q.cancelDelivery, { id: "dlv_nope" }, callers.owner))).toBe("NOT_FOUND");
});
