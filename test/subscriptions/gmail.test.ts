/**
 * Gmail: with CONNECTOR_GMAIL_PUBSUB_TOPIC set, Switchyard calls users.watch for each connected
 * mailbox whose triggers are listed (the Pub/Sub pushes then arrive through the Gmail webhook, as
 * before), calls watch again before the 7-day expiry (Gmail answers it in epoch milliseconds), and
 * calls users.stop when no trigger of it is listed any more.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { fakeClock } from "../helpers/clock.ts";
import { startFakeGmail, type FakeGoogle } from "../helpers/fakeProviders/index.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions } from "./helpers.ts";

const clock = fakeClock(new Date());
const TOPIC = "projects/switchyard-test/topics/gmail";
const WEEK_MS = 7 * 24 * 3600_000;
let google: FakeGoogle;
let app: TestApp;
let ada: Operator;
let accountId: string;

beforeAll(async () => {
  google = await startFakeGmail();
  app = await startTestApp({ ...google.env(), CONNECTOR_GMAIL_PUBSUB_TOPIC: TOPIC }, { clock });
  ada = await createOperator(app);
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: "https://receiver.example.com/hook", triggers: [{ connector: "gmail", trigger: "email_received" }] } }, { token: ada.token }));
  accountId = (await connectAccount(app, ada, { connector: "gmail", account: "alice", provider: google })).id;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await google?.close();
});

test("the mailbox is watched on the configured topic, watched again before the week is out, and stopped when unlisted", async () => {
  await app.app.subscriptions.runOnce(true);
  expect(google.watchRequests).toEqual([{ mailbox: "alice@example.com", body: { topicName: TOPIC } }]);
  const [watch] = await accountSubscriptions(app, ada, accountId);
  expect(watch).toMatchObject({ status: "ACTIVE", resource: "", events: ["INBOX"] });
  expect(Math.abs(Date.parse(watch.expiresAt!) - (Date.now() + WEEK_MS))).toBeLessThan(60_000);

  // Listing email_sent too widens what the watch covers: it is made again (Gmail keeps one per mailbox).
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: "https://receiver.example.com/hook", triggers: ["email_received", "email_sent"].map((trigger) => ({ connector: "gmail", trigger })) } }, { token: ada.token }));
  await app.app.subscriptions.runOnce(true);
  expect(google.watchRequests).toHaveLength(2);
  expect((await accountSubscriptions(app, ada, accountId))[0]).toMatchObject({ status: "ACTIVE", events: ["INBOX", "SENT"] });

  clock.advance(WEEK_MS * 0.76);
  await app.app.subscriptions.runOnce(true);
  expect(google.watchRequests).toHaveLength(3);
  const renewed = (await accountSubscriptions(app, ada, accountId))[0];
  expect(renewed.id).toBe(watch.id);
  expect(renewed.lastRenewedAt).toBe(clock.now().toISOString());

  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: "https://receiver.example.com/hook", triggers: [] } }, { token: ada.token }));
  await app.app.subscriptions.runOnce(true);
  expect(google.stopRequests).toEqual(["alice@example.com"]);
  expect((await accountSubscriptions(app, ada, accountId))[0].status).toBe("DELETED");
});
