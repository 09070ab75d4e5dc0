import { randomBytes } from "node:crypto";
import { print } from "graphql";
import type { Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { createTestDatabase } from "../helpers/database.ts";
import { fireTestEvent, forwardTo, type Live, liveSubscriptions, subscribeWs, until, wsClient } from "../helpers/live.ts";
import { ROLE_CACHE_TTL_MS } from "../../src/auth/access.ts";
import { createOperator, joinByInvitation, type Operator, SignUp } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { type ServiceProcess, serviceProcess } from "../helpers/serviceProcess.ts";
import { scaled } from "../helpers/timing.ts";
import { errorCode, ok } from "../helpers/testApp.ts";

/**
 * Two Switchyard processes on one PostgreSQL database and one Redis, as in production behind a
 * load balancer. PGlite is one process per database, so this needs TEST_DATABASE_URL.
 */
const serverUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

const InstancesForwardedEvents = graphql(`
  subscription InstancesForwardedEvents($deploymentId: ID!) {
    forwardedEvents(deploymentId: $deploymentId) { id account delivery { status } }
  }
`);
const InstancesRemoveMember = graphql(`mutation InstancesRemoveMember($org: ID!, $user: ID!) { removeMember(organizationId: $org, userId: $user) }`);
const InstancesDeployment = graphql(`query InstancesDeployment($id: ID!) { deployment(id: $id) { id name } }`);
const InstancesPending = graphql(`
  query InstancesPending($id: ID!) {
    deployment(id: $id) { pending: deliveries(status: PENDING, limit: 1) { id } }
  }
`);

describe.skipIf(!serverUrl)("two instances, one PostgreSQL, one Redis (needs TEST_DATABASE_URL; skipped on the embedded database, which is one process only)", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let ada: Operator;
  let receiver: Receiver;
  const clients: Client[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
    const env = {
      DATABASE_URL: database.url!,
      REDIS_URL: redisUrl,
      // This run's own Redis keys and channels: runs sharing the Redis never hear each other.
      REDIS_KEY_PREFIX: `sy-test-${randomBytes(4).toString("hex")}:`,
      DELIVERY_RETRY_SCHEDULE: "100ms,200ms",
    };
    [a, b] = await Promise.all([serviceProcess(env), serviceProcess(env)]);
    await Promise.all([a.start(), b.start()]);
    ada = await createOperator(a.client, "Ada");
    await forwardTo(a.client, ada.deploymentId, receiver.url, { token: ada.token });
  }, scaled(120_000));

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    const codes = await Promise.all([a?.stop(), b?.stop()]);
    await receiver?.close();
    await database?.drop();
    expect(codes).toEqual([0, 0]); // both shut down cleanly with a subscriber still connected
  }, scaled(60_000));

  test("a subscriber on B receives an event accepted by A", async () => {
    const client = wsClient(b.url, { connectionParams: { "x-api-key": ada.apiKey } });
    clients.push(client);
    const live: Live = subscribeWs(client, print(InstancesForwardedEvents), { deploymentId: ada.deploymentId });
    await until(async () => (await liveSubscriptions(b.url)) === 1, "B to subscribe (through Redis)");

    const fired = await fireTestEvent(a.client, ada.deploymentId, { token: ada.token });
    expect((await live.next()).data?.forwardedEvents).toEqual({ id: fired.id, account: "test", delivery: { status: "PENDING" } });
    await receiver.waitFor(() => receiver.byEventId(fired.id).length === 1);
    live.stop();
  });

  test("200 events fired across both instances are each delivered once, and all reach a subscriber on either", async () => {
    const client = wsClient(a.url, { connectionParams: { authorization: `Bearer ${ada.token}` } });
    clients.push(client);
    const live = subscribeWs(client, print(InstancesForwardedEvents), { deploymentId: ada.deploymentId });
    await until(async () => (await liveSubscriptions(a.url)) === 1, "A to subscribe");
    const before = receiver.requests.length;

    const fired: string[] = [];
    const instances = [a.client, b.client];
    for (let batch = 0; batch < 20; batch++) {
      const ids = await Promise.all(
        Array.from({ length: 10 }, (_, i) => fireTestEvent(instances[i % 2], ada.deploymentId, { token: ada.token }).then((event) => event.id)),
      );
      fired.push(...ids);
    }
    expect(new Set(fired).size).toBe(200);

    // Every event reaches the subscriber on A, whichever instance accepted it.
    const seen = new Set<string>();
    while (seen.size < 200) seen.add((await live.next()).data!.forwardedEvents.id);
    expect([...seen].sort()).toEqual([...fired].sort());

    // Both workers claim from one queue (SKIP LOCKED): each event arrives exactly once.
    await receiver.waitFor((requests) => requests.length - before >= 200, 60_000);
    await until(async () => ok(await a.client.gql(InstancesPending, { id: ada.deploymentId }, { token: ada.token })).deployment!.pending.length === 0, "no pending deliveries", 30_000);
    for (const id of fired) expect(receiver.byEventId(id), `deliveries of ${id}`).toHaveLength(1);
    expect(receiver.requests.length - before).toBe(200);
    live.stop();
  }, scaled(120_000));

  test("a member removed on A loses access on A at once and on B once B's remembered role (≤ 2 s) runs out", async () => {
    const email = `m-${randomBytes(4).toString("hex")}@example.com`;
    const { signUp } = ok(await a.client.gql(SignUp, { email, password: "member password", name: "M" }));
    await joinByInvitation(a.client.gql, ada.token, ada.organizationId, { email, token: signUp.token });
    const read = (instance: ServiceProcess) => instance.client.gql(InstancesDeployment, { id: ada.deploymentId }, { token: signUp.token });
    // B reads the deployment, so B remembers the member's role.
    expect(ok(await read(b)).deployment?.id).toBe(ada.deploymentId);
    ok(await a.client.gql(InstancesRemoveMember, { org: ada.organizationId, user: signUp.user.id }, { token: ada.token }));
    expect(errorCode(await read(a))).toBe("FORBIDDEN");
    await new Promise((resolve) => setTimeout(resolve, ROLE_CACHE_TTL_MS + 200));
    expect(errorCode(await read(b))).toBe("FORBIDDEN");
  }, scaled(60_000));
});
