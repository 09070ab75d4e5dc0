import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { fakeClock } from "../helpers/clock.ts";
import { fireTestEvent, forwardTo } from "../helpers/live.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * A rotation's overlap ends by the app's clock: for 24 hours after rotateSigningSecret each
 * delivery is signed with the new secret and the old one, then with the new one alone. The clock
 * is moved, not waited for; the signatures are checked with the Standard Webhooks package. A test
 * event happens at the app's time too.
 */

const RotationSecret = graphql(`query RotationSecret($id: ID!) { deployment(id: $id) { signingSecret } }`);
const RotationRotate = graphql(`mutation RotationRotate($id: ID!) { rotateSigningSecret(deploymentId: $id) { signingSecret } }`);

const clock = fakeClock();
let app: TestApp;
let receiver: Receiver;
let ada: Operator;

beforeAll(async () => {
  receiver = await startReceiver();
  app = await startTestApp({}, { worker: true, clock });
  ada = await createOperator(app, "Ada");
  await forwardTo(app, ada.deploymentId, receiver.url, { token: ada.token });
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

/** A test event's forwarded request: its signatures, and each secret's own signature of it. */
async function signaturesOfNextDelivery() {
  const { id } = await fireTestEvent(app, ada.deploymentId, { token: ada.token });
  const requests = await receiver.waitFor((all) => all.some((r) => r.headers["webhook-id"] === id));
  const request = requests.find((r) => r.headers["webhook-id"] === id)!;
  const at = new Date(Number(request.headers["webhook-timestamp"]) * 1000);
  return {
    sent: String(request.headers["webhook-signature"]).split(" "),
    by: (secret: string) => new Webhook(secret).sign(id, at, request.body),
  };
}

test("the replaced secret signs alongside the new one for 24 hours, then stops", async () => {
  const oldSecret = ok(await app.gql(RotationSecret, { id: ada.deploymentId }, { token: ada.token })).deployment!.signingSecret!;
  const newSecret = ok(await app.gql(RotationRotate, { id: ada.deploymentId }, { token: ada.token })).rotateSigningSecret.signingSecret!;
  expect(newSecret).not.toBe(oldSecret);

  const during = await signaturesOfNextDelivery();
  expect(during.sent).toEqual([during.by(newSecret), during.by(oldSecret)]);

  clock.advance(24 * 3_600_000 - 60_000);
  const lastMinute = await signaturesOfNextDelivery();
  expect(lastMinute.sent).toEqual([lastMinute.by(newSecret), lastMinute.by(oldSecret)]);

  clock.advance(2 * 60_000);
  const after = await signaturesOfNextDelivery();
  expect(after.sent).toEqual([after.by(newSecret)]);
  expect(ok(await app.gql(RotationSecret, { id: ada.deploymentId }, { token: ada.token })).deployment!.signingSecret).toBe(newSecret);
});

test("a test event happens at the app's time: its occurredAt, as answered and as forwarded", async () => {
  clock.advance(3_600_000);
  const at = clock.now().toISOString();
  const sent = await fireTestEvent(app, ada.deploymentId, { token: ada.token });
  expect(sent.occurredAt).toBe(at);
  const requests = await receiver.waitFor((all) => all.some((r) => r.headers["webhook-id"] === sent.id));
  expect(JSON.parse(requests.find((r) => r.headers["webhook-id"] === sent.id)!.body).occurredAt).toBe(at);
});
