import { randomBytes } from "node:crypto";
import { print } from "graphql";
import type { Client } from "graphql-ws";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { SESSION_CACHE_TTL_MS } from "../../src/auth/sessions.ts";
import { graphql } from "../generated/gql.ts";
import { createTestDatabase } from "../helpers/database.ts";
import { fireTestEvent, type Live, type LiveResult, liveSubscriptions, subscribeSse, subscribeWs, until, wsClient } from "../helpers/live.ts";
import { createOperator, joinByInvitation, GenerateApiKey, type Operator, SignUp } from "../helpers/operators.ts";
import { type ServiceProcess, serviceProcess } from "../helpers/serviceProcess.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { scaled } from "../helpers/timing.ts";

/**
 * A running subscription stops when its caller loses access: a session that ends (logOut,
 * logOutEverywhere, another session's password change), an API key that is replaced, a member who
 * is removed. The subscriber gets one last error saying so, then `complete`; nothing published
 * after the revocation reaches them.
 */

const RvForwardedEvents = graphql(`
  subscription RvForwardedEvents($deploymentId: ID!, $after: ID) {
    forwardedEvents(deploymentId: $deploymentId, after: $after) { id }
  }
`);
const RvDeliveryUpdates = graphql(`
  subscription RvDeliveryUpdates($deploymentId: ID!) {
    deliveryUpdates(deploymentId: $deploymentId) { id status }
  }
`);
const RvLogIn = graphql(`
  mutation RvLogIn($email: String!, $password: String!) {
    logIn(email: $email, password: $password) { token }
  }
`);
const RvLogOut = graphql(`mutation RvLogOut { logOut }`);
const RvLogOutEverywhere = graphql(`mutation RvLogOutEverywhere { logOutEverywhere }`);
const RvChangePassword = graphql(`
  mutation RvChangePassword($current: String!, $next: String!) {
    changePassword(currentPassword: $current, newPassword: $next)
  }
`);
const RvRemoveMember = graphql(`
  mutation RvRemoveMember($organizationId: ID!, $userId: ID!) {
    removeMember(organizationId: $organizationId, userId: $userId)
  }
`);

const PASSWORD = "correct horse battery"; // createOperator's

const SESSION_ENDED = /^Your session ended \(you logged out, your password was changed, or it expired\), so this subscription stopped\. Log in again/;
const KEY_REVOKED = /^This API key was revoked \(the deployment has a new key\) or has expired, so this subscription stopped\. Subscribe again with the deployment's current API key\.$/;
const NOT_A_MEMBER = /^You are no longer a member of this deployment's organization, so this subscription stopped\./;

/** The next result, or a failure naming what did not arrive (a subscription that was not ended would otherwise hang the test). */
async function nextWithin(live: Live, what: string, ms = 5_000): Promise<LiveResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out waiting for ${what}`)), scaled(ms));
  });
  try {
    return await Promise.race([live.next(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The subscription's last result is the access error, then it completes: asserted together. */
async function expectEnded(live: Live, code: "UNAUTHENTICATED" | "FORBIDDEN", message: RegExp) {
  const last = await nextWithin(live, `the subscription to end with ${code}`);
  expect(last.data ?? null).toBeNull();
  expect(last.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(message), extensions: expect.objectContaining({ code, accessEnded: true }) })]);
  expect(await live.ended).toEqual({ kind: "complete" });
}

describe("on the instance where access is revoked", () => {
  let app: TestApp;
  let ada: Operator;
  const clients: Client[] = [];
  const lives: Live[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    ada = await createOperator(app, "Ada");
  });
  afterAll(() => app.close());
  afterEach(async () => {
    for (const live of lives.splice(0)) live.stop();
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
    await until(() => active() === 0, "subscriptions to close");
  });

  const active = () => app.app.bus.activeSubscriptions();

  function subscribe(
    options: Parameters<typeof wsClient>[1],
    deploymentId: string,
    document: typeof RvForwardedEvents | typeof RvDeliveryUpdates = RvForwardedEvents,
    variables: Record<string, unknown> = {},
  ) {
    const client = wsClient(app.url, options);
    clients.push(client);
    const live = subscribeWs(client, print(document), { deploymentId, ...variables });
    lives.push(live);
    return live;
  }
  const asBearer = (token: string) => ({ connectionParams: { authorization: `Bearer ${token}` } });
  const logIn = async (operator: { email: string }, password = PASSWORD) => ok(await app.gql(RvLogIn, { email: operator.email, password })).logIn.token;
  const fire = (deploymentId: string) => fireTestEvent(app, deploymentId, { token: ada.token });

  test("logOut ends the session's subscriptions at once with UNAUTHENTICATED; an event fired right after never reaches them", async () => {
    const token = await logIn(ada);
    const events = subscribe(asBearer(token), ada.deploymentId);
    const updates = subscribe(asBearer(token), ada.deploymentId, RvDeliveryUpdates);
    await until(() => active() === 2, "the subscriptions to start");
    const before = await fire(ada.deploymentId);
    expect((await nextWithin(events, "the event before logOut")).data?.forwardedEvents.id).toBe(before.id);

    const loggedOut = Date.now();
    expect(ok(await app.gql(RvLogOut, {}, { token })).logOut).toBe(true);
    await fire(ada.deploymentId); // published after the session ended

    await expectEnded(events, "UNAUTHENTICATED", SESSION_ENDED);
    await expectEnded(updates, "UNAUTHENTICATED", SESSION_ENDED);
    expect(Date.now() - loggedOut).toBeLessThan(scaled(1_000));
    expect(active()).toBe(0);
  });

  test("a resumed subscription (after:) ends too, and so does one made with the session cookie on logOutEverywhere", async () => {
    const token = await logIn(ada);
    const first = await fire(ada.deploymentId);
    const resumed = subscribe(asBearer(token), ada.deploymentId, RvForwardedEvents, { after: first.id });
    const byCookie = subscribe({ cookie: `sy_session=${token}` }, ada.deploymentId);
    await until(() => active() === 2, "the subscriptions to start");

    expect(ok(await app.gql(RvLogOutEverywhere, {}, { token })).logOutEverywhere).toBe(true);
    // logOutEverywhere ended the operator's own token too: a new one, to fire with and for the tests that follow.
    ada.token = await logIn(ada);
    await fire(ada.deploymentId);

    await expectEnded(resumed, "UNAUTHENTICATED", SESSION_ENDED);
    await expectEnded(byCookie, "UNAUTHENTICATED", SESSION_ENDED);
  });

  test("a password change ends the user's other sessions' subscriptions; the changing session's goes on", async () => {
    const grace = await createOperator(app, "Grace");
    const laptop = await logIn(grace);
    const onLaptop = subscribe(asBearer(laptop), grace.deploymentId);
    const onChanger = subscribe(asBearer(grace.token), grace.deploymentId);
    await until(() => active() === 2, "the subscriptions to start");

    ok(await app.gql(RvChangePassword, { current: PASSWORD, next: "a brand new password" }, { token: grace.token }));
    const after = await fireTestEvent(app, grace.deploymentId, { token: grace.token });

    await expectEnded(onLaptop, "UNAUTHENTICATED", SESSION_ENDED);
    expect((await nextWithin(onChanger, "the event on the session that changed the password")).data?.forwardedEvents.id).toBe(after.id);
  });

  test("generateApiKey ends the replaced key's subscriptions with UNAUTHENTICATED; the new key subscribes", async () => {
    const key = ok(await app.gql(GenerateApiKey, { deploymentId: ada.deploymentId }, { token: ada.token })).generateApiKey.apiKey;
    const events = subscribe({ connectionParams: { "x-api-key": key } }, ada.deploymentId);
    const updates = subscribe({ connectionParams: { "x-api-key": key } }, ada.deploymentId, RvDeliveryUpdates);
    await until(() => active() === 2, "the subscriptions to start");

    const replacement = ok(await app.gql(GenerateApiKey, { deploymentId: ada.deploymentId }, { token: ada.token })).generateApiKey.apiKey;
    await fire(ada.deploymentId);

    await expectEnded(events, "UNAUTHENTICATED", KEY_REVOKED);
    await expectEnded(updates, "UNAUTHENTICATED", KEY_REVOKED);
    const renewed = subscribe({ connectionParams: { "x-api-key": replacement } }, ada.deploymentId);
    await until(() => active() === 1, "the new key's subscription to start");
    const later = await fire(ada.deploymentId);
    expect((await nextWithin(renewed, "an event on the new key")).data?.forwardedEvents.id).toBe(later.id);
  });

  test("a key replaced with a grace period keeps streaming until the grace period ends, then stops", async () => {
    const key = ok(await app.gql(GenerateApiKey, { deploymentId: ada.deploymentId }, { token: ada.token })).generateApiKey.apiKey;
    const events = subscribe({ connectionParams: { "x-api-key": key } }, ada.deploymentId);
    await until(() => active() === 1, "the subscription to start");

    const rolled = Date.now();
    ok(await app.gql(GenerateApiKey, { deploymentId: ada.deploymentId, gracePeriodSeconds: 3 }, { token: ada.token }));
    const during = await fire(ada.deploymentId);
    expect((await nextWithin(events, "an event during the grace period")).data?.forwardedEvents.id).toBe(during.id);

    await new Promise((resolve) => setTimeout(resolve, rolled + 3_200 - Date.now()));
    await fire(ada.deploymentId); // after the grace period: well within SUBSCRIPTION_ACCESS_RECHECK's 10 s
    await expectEnded(events, "UNAUTHENTICATED", KEY_REVOKED);
  });

  test("removeMember ends the removed member's subscriptions with FORBIDDEN; the owner's go on", async () => {
    const email = `member-${randomBytes(4).toString("hex")}@example.com`;
    const member = ok(await app.gql(SignUp, { email, password: PASSWORD, name: "Member" })).signUp;
    await joinByInvitation(app.gql, ada.token, ada.organizationId, { email, token: member.token });
    const membersEvents = subscribe(asBearer(member.token), ada.deploymentId);
    const membersUpdates = subscribe(asBearer(member.token), ada.deploymentId, RvDeliveryUpdates);
    const owners = subscribe(asBearer(ada.token), ada.deploymentId);
    await until(() => active() === 3, "the subscriptions to start");

    expect(ok(await app.gql(RvRemoveMember, { organizationId: ada.organizationId, userId: member.user.id }, { token: ada.token })).removeMember).toBe(true);
    const after = await fire(ada.deploymentId);

    await expectEnded(membersEvents, "FORBIDDEN", NOT_A_MEMBER);
    await expectEnded(membersUpdates, "FORBIDDEN", NOT_A_MEMBER);
    expect((await nextWithin(owners, "the owner's event")).data?.forwardedEvents.id).toBe(after.id);
  });

  test("another user's logOut, key change or removal does not end yours", async () => {
    const bob = await createOperator(app, "Bob");
    const bobsToken = await logIn(bob);
    const adasApiKey = ok(await app.gql(GenerateApiKey, { deploymentId: ada.deploymentId }, { token: ada.token })).generateApiKey.apiKey;
    const adasSession = subscribe(asBearer(ada.token), ada.deploymentId);
    const adasKey = subscribe({ connectionParams: { "x-api-key": adasApiKey } }, ada.deploymentId);
    await until(() => active() === 2, "the subscriptions to start");

    ok(await app.gql(RvLogOut, {}, { token: bobsToken }));
    ok(await app.gql(GenerateApiKey, { deploymentId: bob.deploymentId }, { token: bob.token }));
    await joinByInvitation(app.gql, bob.token, bob.organizationId, ada);
    ok(await app.gql(RvRemoveMember, { organizationId: bob.organizationId, userId: ada.userId }, { token: bob.token }));
    const after = await fire(ada.deploymentId);

    expect((await nextWithin(adasSession, "the event on Ada's session")).data?.forwardedEvents.id).toBe(after.id);
    expect((await nextWithin(adasKey, "the event on Ada's key")).data?.forwardedEvents.id).toBe(after.id);
  });

  test("over SSE, logOut ends the stream: the error as its last message, then the stream closes", async () => {
    const token = await logIn(ada);
    const live = await subscribeSse(app.url, print(RvForwardedEvents), { deploymentId: ada.deploymentId }, { authorization: `Bearer ${token}` });
    lives.push(live);
    expect(live.status).toBe(200);
    await until(() => active() === 1, "the subscription to start");

    ok(await app.gql(RvLogOut, {}, { token }));
    await fire(ada.deploymentId);

    await expectEnded(live, "UNAUTHENTICATED", SESSION_ENDED);
    await until(() => active() === 0, "the stream to unsubscribe");
  });
});

/**
 * Two processes on one PostgreSQL and one Redis (as test/events/instances.test.ts): a revocation on
 * A is not heard on B, whose subscriptions re-check their caller before sending once their last
 * check is older than SUBSCRIPTION_ACCESS_RECHECK (and B's session cache has let go: ≤ 2 s).
 */
const serverUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const RECHECK_MS = 200;

describe.skipIf(!serverUrl)("on another instance (needs TEST_DATABASE_URL)", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let ada: Operator;
  const clients: Client[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = {
      DATABASE_URL: database.url!,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: `sy-test-${randomBytes(4).toString("hex")}:`,
      SUBSCRIPTION_ACCESS_RECHECK: `${RECHECK_MS}ms`,
    };
    [a, b] = await Promise.all([serviceProcess(env), serviceProcess(env)]);
    await Promise.all([a.start(), b.start()]);
    ada = await createOperator(a.client, "Ada");
  }, scaled(120_000));

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  }, scaled(60_000));

  function subscribeOnB(options: Parameters<typeof wsClient>[1]) {
    const client = wsClient(b.url, options);
    clients.push(client);
    return subscribeWs(client, print(RvForwardedEvents), { deploymentId: ada.deploymentId });
  }
  // Past B's own memory of the session or key (≤ 2 s) and the re-check bound: from here on, B must not send.
  const staleness = () => new Promise((resolve) => setTimeout(resolve, SESSION_CACHE_TTL_MS + RECHECK_MS + 300));

  test("logOut on A: B's subscriber of that session gets UNAUTHENTICATED instead of the next event", async () => {
    const token = ok(await a.client.gql(RvLogIn, { email: ada.email, password: PASSWORD })).logIn.token;
    const live = subscribeOnB({ connectionParams: { authorization: `Bearer ${token}` } });
    await until(async () => (await liveSubscriptions(b.url)) === 1, "B to subscribe");
    const before = await fireTestEvent(a.client, ada.deploymentId, { token: ada.token });
    expect((await nextWithin(live, "the event before logOut")).data?.forwardedEvents.id).toBe(before.id);

    ok(await a.client.gql(RvLogOut, {}, { token }));
    await staleness();
    await fireTestEvent(a.client, ada.deploymentId, { token: ada.token });

    await expectEnded(live, "UNAUTHENTICATED", SESSION_ENDED);
    await until(async () => (await liveSubscriptions(b.url)) === 0, "B to let go of the subscription");
  });

  test("generateApiKey on A: B's subscriber of the replaced key stops", async () => {
    const live = subscribeOnB({ connectionParams: { "x-api-key": ada.apiKey } });
    await until(async () => (await liveSubscriptions(b.url)) === 1, "B to subscribe");

    ok(await a.client.gql(GenerateApiKey, { deploymentId: ada.deploymentId }, { token: ada.token }));
    await staleness();
    await fireTestEvent(a.client, ada.deploymentId, { token: ada.token });

    await expectEnded(live, "UNAUTHENTICATED", KEY_REVOKED);
  });
});
