/**
 * Tokens a provider's URL check asks to have echoed — Microsoft Graph's `validationToken`
 * (https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks#notificationurl-validation)
 * and Dropbox's `challenge` (https://www.dropbox.com/developers/reference/webhooks) — are echoed
 * only when they look like one: bounded in length and characters. Anything else is 400, never
 * echoed (a page of someone else's choosing served from Switchyard's origin).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

let app: TestApp;
let ada: Operator;

beforeAll(async () => {
  app = await startTestApp({ CONNECTOR_DROPBOX_WEBHOOK_SECRET: "dropbox-app-secret" });
  ada = await createOperator(app, "Ada");
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const graph = (token: string) => fetch(`${app.url}/webhooks/${ada.deploymentId}/microsoft?validationToken=${encodeURIComponent(token)}`, { method: "POST", headers: { "content-type": "text/plain" } });
const dropbox = (challenge: string) => fetch(`${app.url}/webhooks/${ada.deploymentId}/dropbox?challenge=${encodeURIComponent(challenge)}`);

describe("echoed handshake tokens", () => {
  test("Graph's validationToken as Graph sends it is echoed as plain text", async () => {
    const token = "Validation: Testing client application reachability for subscription Request-Id: 9f3b8f5e-1c1d-4b4e-9d61-2f6c3c2b1a0e";
    const response = await graph(token);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await response.text()).toBe(token);
  });

  test.each([["markup", "<script>alert(1)</script>"], ["too long", "a".repeat(1025)], ["a control character", "Validation:\u0000x"]])("a validationToken with %s is 400, not echoed", async (_why, token) => {
    const response = await graph(token);
    expect(response.status).toBe(400);
    expect(await response.text()).not.toContain(token);
  });

  test("Dropbox's challenge is echoed; one with markup or over 512 characters is 400", async () => {
    const echoed = await dropbox("f3b1c0de-challenge");
    expect(echoed.status).toBe(200);
    expect(await echoed.text()).toBe("f3b1c0de-challenge");
    for (const challenge of ["<svg onload=alert(1)>", "c".repeat(513)]) {
      const response = await dropbox(challenge);
      expect(response.status).toBe(400);
      expect(await response.text()).not.toContain(challenge);
    }
  });
});
