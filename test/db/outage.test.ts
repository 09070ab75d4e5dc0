import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { fireTestEvent, forwardTo, until } from "../helpers/live.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type OwnPostgres, ownPostgres, ownServersMissing } from "../helpers/ownServers.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { type ServiceProcess, serviceProcess } from "../helpers/serviceProcess.ts";
import { scaled } from "../helpers/timing.ts";

/**
 * PostgreSQL stops (`immediate`) under a running instance: every surface answers 503 with
 * Retry-After — `database_unavailable` on REST and webhooks, SERVICE_UNAVAILABLE on GraphQL — not
 * 500; /readyz keeps answering, quickly, 503; the log has one warning for the outage, not one per
 * request and no stack, however many background passes meet the outage (the vacuum job runs every
 * second here) or an attempt answered meanwhile; and when PostgreSQL is back the instance serves
 * again by itself, and the attempt that could not be recorded is made again with the same webhook-id.
 */
const OutageViewer = graphql(`query OutageViewer($id: ID!) { deployment(id: $id) { id name } }`);

describe.skipIf(ownServersMissing !== undefined)(`the database stops and comes back (${ownServersMissing ?? "own PostgreSQL"})`, () => {
  let postgres: OwnPostgres;
  let service: ServiceProcess;
  let receiver: Receiver;
  let ada: Operator;

  beforeAll(async () => {
    postgres = await ownPostgres();
    await postgres.start();
    receiver = await startReceiver();
    service = await serviceProcess({
      DATABASE_URL: postgres.url,
      // A background pass every second: the outage below outlasts two of them.
      VACUUM_INTERVAL: "1s",
      // A lease of 7 s: the attempt that could not be recorded is made again soon after the outage.
      DELIVERY_TIMEOUT_MS: "2000",
    });
    await service.start();
    ada = await createOperator(service.client, "Ada");
    await forwardTo(service.client, ada.deploymentId, `${receiver.url}/outage`, { token: ada.token });
  }, scaled(120_000));

  afterAll(async () => {
    await service?.stop();
    await Promise.all([postgres?.remove(), receiver?.close()]);
  }, scaled(60_000));

  test("503 with Retry-After on every surface, one warning, and recovery without a restart", async () => {
    // A delivery in flight when the database stops: its receiver answers only once it is down.
    receiver.respond((request, n) => (n === 1 ? receiver.hold(String(request.headers["webhook-id"])) : 200));
    const event = await fireTestEvent(service.client, ada.deploymentId, { token: ada.token });
    await until(() => receiver.holding.has(event.id), "the test event's delivery to reach the receiver");

    const logBefore = service.output().length;
    await postgres.stopNow();
    receiver.release(event.id);
    // Long enough for the caches of keys and deployments (≤ 2 s) to run out: each request needs the database.
    await new Promise((resolve) => setTimeout(resolve, 2_500));

    const refused = [
      await fetch(`${service.url}/api/data`, { headers: { "x-api-key": ada.apiKey } }),
      await fetch(`${service.url}/api/v1/connector/service/github/auth-url?account=alice`, { headers: { "x-api-key": ada.apiKey } }),
      // Its queue gauges are read from the database: the scrape fails (Prometheus' `up` is 0).
      await fetch(`${service.url}/metrics`),
      await fetch(`${service.url}/webhooks/${ada.deploymentId}/github`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-github-event": "issues", "x-hub-signature-256": "sha256=00" },
        body: JSON.stringify({ action: "opened" }),
      }),
    ];
    for (const response of refused) {
      expect({ url: response.url, status: response.status }).toEqual({ url: response.url, status: 503 });
      expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(await response.json()).toMatchObject({ status: 503, code: "database_unavailable" });
    }

    const graphqlResponse = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ada.token}` },
      body: JSON.stringify({ query: "query OutageViewer($id: ID!) { deployment(id: $id) { id name } }", variables: { id: ada.deploymentId } }),
    });
    expect(graphqlResponse.status).toBe(503);
    expect(graphqlResponse.headers.get("retry-after")).toMatch(/^\d+$/);
    const body = (await graphqlResponse.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0].extensions.code).toBe("SERVICE_UNAVAILABLE");

    // Readiness answers (503), whatever state the connection pool is in.
    const ready = await fetch(`${service.url}/readyz`, { signal: AbortSignal.timeout(scaled(5_000)) });
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ code: "database_unavailable" });

    // One warning for the outage: no error per request or per pass, no stack, no SQL (LOG_LEVEL=warn:
    // every line is a warning or worse).
    const log = service.output().slice(logBefore);
    expect(log.match(/the database is unreachable/g)).toHaveLength(1);
    expect(log.split("\n").filter((line) => line.trim() !== "" && !line.includes("the database is unreachable"))).toEqual([]);
    expect(log).not.toMatch(/"level":50|unexpected error|\bat \w+ \(|select /);

    await postgres.start();
    await until(async () => (await fetch(`${service.url}/readyz`)).status === 200, "the instance to be ready again", 30_000);
    const data = await fetch(`${service.url}/api/data`, { headers: { "x-api-key": ada.apiKey } });
    expect(data.status).toBe(200);
    const result = await service.client.gql(OutageViewer, { id: ada.deploymentId }, { token: ada.token });
    expect(result.data?.deployment?.id).toBe(ada.deploymentId);

    // The 200 answered during the outage was never recorded: once the lease runs out it is sent again.
    const again = await receiver.waitFor((requests) => requests.filter((request) => request.headers["webhook-id"] === event.id).length === 2, 30_000);
    expect(again.filter((request) => request.headers["webhook-id"] === event.id).map((request) => request.status)).toEqual([200, 200]);
  }, scaled(120_000));
});
