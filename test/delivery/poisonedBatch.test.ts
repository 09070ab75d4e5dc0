import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MAX_UNRECORDED_CLAIMS, UNRECORDED_CLAIMS_ERROR } from "../../src/delivery/queue/index.ts";
import { graphql } from "../generated/gql.ts";
import { DeploymentDeliveries, SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * One tenant's receiver must not be able to stop another tenant's deliveries from being recorded.
 * Attempts are recorded many to a statement (group commit); a value the database refuses used to
 * fail the whole statement, so every delivery in it stayed PENDING with no attempt and was sent
 * again each time its lease ran out — to the attacker and to everyone batched with them.
 */

const RetryDelivery = graphql(`
  mutation RetryDeliveryAfterPoison($id: ID!) { retryDelivery(id: $id) { id status } }
`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function forwardingTo(app: TestApp, url: string, name: string): Promise<Operator> {
  const operator = await createOperator(app, name);
  ok(await app.gql(SaveForwardingSettings, { deploymentId: operator.deploymentId, input: { forwardingUrl: url, triggers: [] } }, { token: operator.token }));
  return operator;
}

async function sendTestEvents(app: TestApp, operator: Operator, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { sendTestEvent } = ok(
      await app.gql(SendTestEvent, { deploymentId: operator.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { token: operator.token }),
    );
    ids.push(sendTestEvent.id);
  }
  return ids;
}

const deliveriesOf = async (app: TestApp, operator: Operator) =>
  ok(await app.gql(DeploymentDeliveries, { id: operator.deploymentId, limit: 100 }, { token: operator.token })).deployment!.deliveries;

describe("a receiver that answers with a NUL and unpaired surrogates", () => {
  let app: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    // No background worker: the story runs the worker's rounds itself, so every attempt of a round
    // is recorded in one statement — the batch a busy worker would make.
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  test("is recorded like any other answer, and the tenant batched with it gets each event exactly once", async () => {
    // A lease of 1 ms: the next round finds anything left unrecorded due again, as the real worker
    // would once a lease (timeout + 5 s) ran out.
    const worker = app.app.createDeliveryWorker({ leaseMs: 1 });
    const mallory = await forwardingTo(app, `${receiver.url}/mallory`, "Mallory");
    const bob = await forwardingTo(app, `${receiver.url}/bob`, "Bob");
    // Bytes as a receiver may send them: a NUL, and a UTF-16 surrogate half encoded as if it were UTF-8.
    const poisoned = Buffer.concat([Buffer.from('{"ok":true,"note":"'), Buffer.from([0x00]), Buffer.from(" then "), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);
    receiver.respond((request) => (request.path.startsWith("/mallory") ? { status: 200, headers: { "content-type": "application/json" }, body: poisoned } : 200));

    const malloryEvents = await sendTestEvents(app, mallory, 4);
    const bobEvents = await sendTestEvents(app, bob, 8);
    expect(await worker.runOnce()).toBe(12);
    await sleep(5); // past the lease
    expect(await worker.runOnce()).toBe(0);
    await worker.stop();

    for (const id of bobEvents) expect(receiver.byEventId(id), `requests for Bob's ${id}`).toHaveLength(1);
    for (const id of malloryEvents) expect(receiver.byEventId(id), `requests for Mallory's ${id}`).toHaveLength(1);
    const bobs = await deliveriesOf(app, bob);
    expect(bobs.map((d) => [d.status, d.attempts])).toEqual(bobEvents.map(() => ["SUCCEEDED", 1]));
    const mallorys = await deliveriesOf(app, mallory);
    expect(mallorys.map((d) => [d.status, d.attempts])).toEqual(malloryEvents.map(() => ["SUCCEEDED", 1]));
    // What could not be stored is replaced, visibly; the rest of the answer is kept.
    for (const delivery of mallorys) {
      const body = delivery.attemptLog[0].responseBody!;
      expect(body).toMatch(/^\{"ok":true,"note":"\uFFFD then \uFFFD+"\}$/);
      expect(body).not.toContain("\0");
    }
  });
});

describe("an attempt the database refuses", () => {
  let app: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    // No background worker: this story runs the worker's rounds itself.
    app = await startTestApp({ DELIVERY_RETRY_SCHEDULE: "100ms" });
    // A fault the sanitizer cannot prevent, injected below the service: the database refuses any
    // statement that records an attempt whose answer is "refused by the database".
    await app.database.sql.query(`
      create function refuse_poisoned_attempts() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from inserted where response_body = 'refused by the database') then
          raise exception 'this attempt cannot be stored';
        end if;
        return null;
      end $$`);
    await app.database.sql.query(`
      create trigger refuse_poisoned_attempts after insert on delivery_attempt
      referencing new table as inserted for each statement execute function refuse_poisoned_attempts()`);
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  test("fails alone: its batch is recorded row by row; it is sent at most MAX_UNRECORDED_CLAIMS times, then FAILED with the reason", async () => {
    // A lease of 1 ms: every round of the worker finds the unrecorded deliveries due again, as the
    // real worker would once each lease (timeout + 5 s) ran out.
    const worker = app.app.createDeliveryWorker({ leaseMs: 1 });

    const mallory = await forwardingTo(app, `${receiver.url}/mallory`, "Mallory");
    const bob = await forwardingTo(app, `${receiver.url}/bob`, "Bob");
    const malloryEvents = await sendTestEvents(app, mallory, 3);
    const bobEvents = await sendTestEvents(app, bob, 6);

    // Round one: the nine attempts are recorded in one statement, which the database refuses.
    receiver.respond((request) => (request.path.startsWith("/mallory") ? { status: 200, body: "refused by the database" } : 200));
    expect(await worker.runOnce()).toBe(9);
    for (const id of bobEvents) expect(receiver.byEventId(id)).toHaveLength(1);
    expect((await deliveriesOf(app, bob)).map((d) => [d.status, d.attempts])).toEqual(bobEvents.map(() => ["SUCCEEDED", 1]));
    expect((await deliveriesOf(app, mallory)).map((d) => [d.status, d.attempts])).toEqual(malloryEvents.map(() => ["PENDING", 0]));

    // Later rounds: only Mallory's are due again, and never recorded — until the cap stops them.
    for (let round = 0; round < 2 * MAX_UNRECORDED_CLAIMS; round++) {
      await sleep(5); // past the 1 ms lease
      await worker.runOnce();
      if ((await deliveriesOf(app, mallory)).every((d) => d.status !== "PENDING")) break;
    }
    for (const id of malloryEvents) expect(receiver.byEventId(id)).toHaveLength(MAX_UNRECORDED_CLAIMS);
    for (const id of bobEvents) expect(receiver.byEventId(id)).toHaveLength(1);
    const stopped = await deliveriesOf(app, mallory);
    for (const delivery of stopped) {
      expect(delivery).toMatchObject({ status: "FAILED", attempts: 0, nextAttemptAt: null, lastError: UNRECORDED_CLAIMS_ERROR });
      expect(delivery.completedAt).not.toBeNull();
    }
    expect(await worker.runOnce()).toBe(0);

    // Once the cause is gone, the operator's retry sends it again with a fresh count.
    receiver.respond(() => 200);
    ok(await app.gql(RetryDelivery, { id: stopped[0].id }, { token: mallory.token }));
    expect(await worker.runOnce()).toBe(1);
    const retried = (await deliveriesOf(app, mallory)).find((d) => d.id === stopped[0].id)!;
    expect(retried).toMatchObject({ status: "SUCCEEDED", attempts: 1, lastError: null });
    await worker.stop();
  });
});
