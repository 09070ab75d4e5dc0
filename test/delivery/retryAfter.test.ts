import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { fakeClock } from "../helpers/clock.ts";
import { SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

// Retry-After on 429 and 503 (src/delivery/retryPolicy.ts): the next attempt waits what the receiver
// asked when that is longer than the schedule's step, at most an hour; the attempt records the ask.
// The service runs on a clock a day ahead of the machine's: an HTTP date is read against that clock.
const clock = fakeClock(new Date(Date.now() + 86_400_000));
let app: TestApp;
let receiver: Receiver;

const Attempts = graphql(`
  query RetryAfterAttempts($id: ID!) {
    deployment(id: $id) {
      id
      deliveries { id status attempts nextAttemptAt attemptLog { number statusCode retryAfterSeconds } }
    }
  }
`);

beforeAll(async () => {
  receiver = await startReceiver();
  // /429/<seconds>, /503-date/<seconds from the service's clock>, /500/<seconds>; a second try is 200.
  receiver.respond((request, n) => {
    if (n > 1) return 200;
    const [, kind, value] = request.path.split("/");
    if (kind === "503-date") return { status: 503, headers: { "retry-after": new Date(clock.now().getTime() + Number(value) * 1000).toUTCString() } };
    return { status: Number(kind), headers: { "retry-after": value } };
  });
  app = await startTestApp({ DELIVERY_RETRY_SCHEDULE: "100ms,200ms" }, { worker: true, clock });
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

/** Forwards to `path`, sends one test event and returns its delivery once the first attempt is recorded. */
async function firstAttempt(path: string, name: string) {
  const operator: Operator = await createOperator(app, name);
  ok(await app.gql(SaveForwardingSettings, { deploymentId: operator.deploymentId, input: { forwardingUrl: `${receiver.url}${path}`, triggers: [] } }, { token: operator.token }));
  ok(await app.gql(SendTestEvent, { deploymentId: operator.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { token: operator.token }));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [delivery] = ok(await app.gql(Attempts, { id: operator.deploymentId }, { token: operator.token })).deployment!.deliveries;
    if (delivery && delivery.attempts >= 1) return delivery;
    if (Date.now() > deadline) throw new Error(`no attempt recorded for ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Seconds from the app's clock (the queue's statements take their time from it) to the next attempt. */
const secondsUntil = (nextAttemptAt: unknown) => (new Date(String(nextAttemptAt)).getTime() - clock.now().getTime()) / 1000;

describe("Retry-After from receivers", () => {
  test("429 with seconds longer than the step: the next attempt waits them, and the attempt records them", async () => {
    const delivery = await firstAttempt("/429/30", "Seconds");
    expect(delivery.status).toBe("PENDING");
    expect(delivery.attemptLog).toEqual([{ number: 1, statusCode: 429, retryAfterSeconds: 30 }]);
    expect(secondsUntil(delivery.nextAttemptAt)).toBe(30);
  });

  test("503 with an HTTP date: read against the service's clock", async () => {
    const delivery = await firstAttempt("/503-date/120", "Date");
    expect(delivery.attemptLog[0].statusCode).toBe(503);
    // The date has whole seconds: 119–120 s from the clock, not -86,280 s from the machine's time.
    expect(delivery.attemptLog[0].retryAfterSeconds).toBeGreaterThanOrEqual(119);
    expect(delivery.attemptLog[0].retryAfterSeconds).toBeLessThanOrEqual(120);
    expect(secondsUntil(delivery.nextAttemptAt)).toBeGreaterThanOrEqual(119);
    expect(secondsUntil(delivery.nextAttemptAt)).toBeLessThanOrEqual(120);
  });

  test("more than an hour: recorded as asked, the wait is capped at an hour", async () => {
    const delivery = await firstAttempt("/429/7200", "Long");
    expect(delivery.attemptLog[0].retryAfterSeconds).toBe(7200);
    expect(secondsUntil(delivery.nextAttemptAt)).toBe(3600);
  });

  test("shorter than the step changes nothing: the schedule's step, then the second try succeeds", async () => {
    const delivery = await firstAttempt("/429/0", "Short");
    expect(delivery.attemptLog[0].retryAfterSeconds).toBe(0);
    // The clock stands still: the schedule's 100 ms step (±10 % jitter) is due once it moves past it.
    clock.advance(150);
    await receiver.waitFor((requests) => requests.filter((r) => r.path === "/429/0").length === 2, 60_000);
  });

  test("other statuses ignore it: a 500's Retry-After is neither used nor recorded", async () => {
    const delivery = await firstAttempt("/500/600", "Other");
    expect(delivery.attemptLog[0]).toEqual({ number: 1, statusCode: 500, retryAfterSeconds: null });
    // The schedule's 100 ms step, ±10 % jitter.
    expect(secondsUntil(delivery.nextAttemptAt)).toBeGreaterThanOrEqual(0.09);
    expect(secondsUntil(delivery.nextAttemptAt)).toBeLessThanOrEqual(0.11);
    clock.advance(150);
    await receiver.waitFor((requests) => requests.filter((r) => r.path === "/500/600").length === 2, 60_000);
  });
});
