import { randomBytes } from "node:crypto";
import { print } from "graphql";
import type { Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { fireTestEvent, forwardTo, liveSubscriptions, subscribeWs, until, wsClient } from "../helpers/live.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type OwnPostgres, type OwnServer, ownPostgres, ownRedis, ownServersMissing } from "../helpers/ownServers.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { type ServiceProcess, serviceProcess } from "../helpers/serviceProcess.ts";
import { scaled } from "../helpers/timing.ts";

/**
 * Redis stops while two instances take webhooks: nothing accepted is lost, neither process exits,
 * /readyz says `redis: degraded` and stays 200, live subscribers are told (LIVE_DEGRADED) instead of
 * silently missing events, and once Redis is back a subscriber resumes with `after` and gets every
 * event it missed. The test runs its own PostgreSQL and Redis (it stops them), on both runs of the suite.
 */
const OutageForwardedEvents = graphql(`
  subscription OutageForwardedEvents($deploymentId: ID!, $after: ID) {
    forwardedEvents(deploymentId: $deploymentId, after: $after) { id }
  }
`);

const readiness = async (instance: ServiceProcess) => {
  const response = await fetch(`${instance.url}/readyz`);
  return { status: response.status, body: (await response.json()) as { redis?: string } };
};

describe.skipIf(ownServersMissing !== undefined)(`Redis stops and comes back (${ownServersMissing ?? "own PostgreSQL and Redis"})`, () => {
  let postgres: OwnPostgres;
  let redis: OwnServer;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let ada: Operator;
  let receiver: Receiver;
  const clients: Client[] = [];

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([ownPostgres(), ownRedis()]);
    await Promise.all([postgres.start(), redis.start()]);
    receiver = await startReceiver();
    const env = {
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `sy-outage-${randomBytes(4).toString("hex")}:`,
      DELIVERY_RETRY_SCHEDULE: "100ms,200ms",
    };
    // One after the other: both would apply the migrations at once (they would wait on each other's lock).
    a = await serviceProcess(env);
    await a.start();
    b = await serviceProcess(env);
    await b.start();
    ada = await createOperator(a.client, "Ada");
    await forwardTo(a.client, ada.deploymentId, receiver.url, { token: ada.token });
  }, scaled(180_000));

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await Promise.all([a?.stop(), b?.stop()]);
    await receiver?.close();
    await Promise.all([redis?.stopNow(), postgres?.remove()]);
  }, scaled(60_000));

  test("webhooks keep flowing, nobody crashes, subscribers are told and then replay what they missed", async () => {
    const caller = { token: ada.token };
    const client = wsClient(b.url, { connectionParams: { authorization: `Bearer ${ada.token}` } });
    clients.push(client);
    const live = subscribeWs(client, print(OutageForwardedEvents), { deploymentId: ada.deploymentId });
    await until(async () => (await liveSubscriptions(b.url)) === 1, "B to subscribe");
    const before = await fireTestEvent(a.client, ada.deploymentId, caller);
    expect((await live.next()).data?.forwardedEvents).toEqual({ id: before.id });
    expect((await readiness(a)).body.redis).toBe("ok");

    await redis.stopNow();

    // The subscriber is told, not left listening to a stream that no longer carries everything.
    const notice = await live.next();
    expect(notice.errors?.[0]?.extensions?.code).toBe("LIVE_DEGRADED");
    expect(await live.ended).toEqual({ kind: "complete" });

    // Events accepted on both instances while Redis is down: each one stored and delivered.
    const during: string[] = [];
    for (let i = 0; i < 10; i++) during.push((await fireTestEvent(i % 2 ? b.client : a.client, ada.deploymentId, caller)).id);
    await receiver.waitFor(() => during.every((id) => receiver.byEventId(id).length >= 1), 30_000);

    // Rate-limited REST keeps answering (counted on each instance meanwhile).
    const data = await fetch(`${a.url}/api/data`, { headers: { "x-api-key": ada.apiKey } });
    expect(data.status).toBe(200);

    // Still up, still ready, and saying why it is degraded.
    for (const instance of [a, b]) {
      expect(await readiness(instance)).toMatchObject({ status: 200, body: { status: "ready", redis: "degraded" } });
      const metrics = await (await fetch(`${instance.url}/metrics`)).text();
      expect(metrics).toMatch(/^switchyard_redis_up 0$/m);
      expect(metrics).toMatch(/^switchyard_redis_fallbacks_total\{use="publish"\} [1-9]/m);
    }

    // A new subscription now would miss other instances' events: refused, with when to try again.
    const refused = subscribeWs(client, print(OutageForwardedEvents), { deploymentId: ada.deploymentId });
    expect((await refused.next()).errors?.[0]?.extensions).toMatchObject({ code: "LIVE_DEGRADED", retryAfter: expect.any(Number) });
    expect(await refused.ended).toEqual({ kind: "complete" });

    await redis.start();
    await until(async () => (await readiness(a)).body.redis === "ok" && (await readiness(b)).body.redis === "ok", "both instances to reconnect to Redis", 30_000);

    // Resuming after the last event seen replays every one missed, in order, then goes on live.
    const resumed = subscribeWs(client, print(OutageForwardedEvents), { deploymentId: ada.deploymentId, after: before.id });
    const replayed: string[] = [];
    while (replayed.length < during.length) replayed.push((await resumed.next()).data!.forwardedEvents.id);
    expect(replayed).toEqual(during);
    const after = await fireTestEvent(b.client, ada.deploymentId, caller);
    expect((await resumed.next()).data?.forwardedEvents).toEqual({ id: after.id });
    resumed.stop();

    // Neither process ever exited.
    for (const instance of [a, b]) expect(instance.output()).not.toMatch(/Switchyard failed|MaxRetriesPerRequestError|unhandled/i);
    expect((await readiness(a)).status).toBe(200);
    expect((await readiness(b)).status).toBe(200);
  }, scaled(180_000));
});
