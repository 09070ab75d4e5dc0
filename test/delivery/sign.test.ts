import { Webhook } from "standardwebhooks";
import { expect, test } from "vitest";
import { randomId, timeOrderedId } from "../../src/crypto/secrets.ts";
import { newSigningSecret } from "../../src/deployments/signingSecrets.ts";
import { buildForwardedRequest } from "../../src/delivery/forwardedRequest.ts";

// The forwarded signature is computed with node:crypto; the Standard Webhooks package is the judge.
test("each secret's signature is the one the Standard Webhooks package signs and verifies", () => {
  const current = newSigningSecret();
  const previous = newSigningSecret();
  const body = JSON.stringify({ id: "evt_1", data: { title: "naïve ✓ \"quoted\"" } });
  // Now, since verify refuses a timestamp over five minutes from its own clock.
  const at = new Date();
  const seconds = Math.floor(at.getTime() / 1000);
  const { headers } = buildForwardedRequest({ eventId: "evt_1", body, at, userAgent: "Switchyard/test", signing: [current, previous] });

  expect(headers["webhook-id"]).toBe("evt_1");
  expect(headers["webhook-timestamp"]).toBe(String(seconds));
  expect(headers["webhook-signature"]).toBe(
    [current, previous].map((secret) => new Webhook(secret).sign("evt_1", new Date(seconds * 1000), body)).join(" "),
  );
  // A receiver holding either secret (a rotation's overlap) verifies; one holding neither does not.
  expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
  expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
});

test("a row id is its prefix and 24 hex characters, never the same twice", () => {
  const ids = Array.from({ length: 1000 }, () => randomId("evt"));
  for (const id of ids) expect(id).toMatch(/^evt_[0-9a-f]{24}$/);
  expect(new Set(ids).size).toBe(ids.length);
});

test("an event-path id has the same shape, and ids made later sort after earlier ones", () => {
  const start = Date.parse("2026-11-29T15:00:00Z");
  const ids = Array.from({ length: 1000 }, (_, index) => timeOrderedId("dlv", start + Math.floor(index / 10)));
  for (const id of ids) expect(id).toMatch(/^dlv_[0-9a-f]{24}$/);
  expect(new Set(ids).size).toBe(ids.length);
  // Ten per millisecond: within one their order is random, across them it is the time's.
  const byTime = (id: string) => id.slice(4, 16);
  expect([...ids].sort().map(byTime)).toEqual(ids.map(byTime));
  expect(byTime(timeOrderedId("dlv", start))).toBe(start.toString(16).padStart(12, "0"));
});
