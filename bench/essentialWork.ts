/**
 * What Switchyard must do to each forwarded event that a naive forwarder does not, timed alone on
 * the forwarding benchmark's own request: verify the provider's HMAC over the raw body, parse it,
 * serialize what is stored and forwarded, and sign the delivery (Standard Webhooks). Prints µs an
 * event for each, to set beside the service's CPU an event against the naive forwarder's
 * (docs/benchmarks.md).
 *
 *   npx tsx bench/essentialWork.ts
 */
import { randomUUID } from "node:crypto";
import { findConnector } from "../src/connectors/registry.ts";
import { buildForwardedRequest, forwardedBody } from "../src/delivery/forwardedRequest.ts";
import { githubIssuesPayload, githubWebhook } from "../test/helpers/fakeProviders/github.ts";

const SECRET = "bench-github-webhook-secret";
const SIGNING_SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const request = githubWebhook("issues", githubIssuesPayload("opened", { title: "1 essential work", sender: { login: "octocat", id: 583231 } }), SECRET, {
  deliveryId: randomUUID(),
});
const rawBody = Buffer.from(request.body);
const github = findConnector("github")!;
const inbound = { headers: request.headers, rawBody, method: "POST", query: new URLSearchParams(), url: "http://127.0.0.1/webhooks/d/github" };
const now = new Date();

function time(name: string, work: () => unknown, n = 20_000) {
  for (let i = 0; i < 2_000; i++) work(); // warm: optimized before it is timed
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) work();
  const us = Number(process.hrtime.bigint() - started) / 1e3 / n;
  console.log(`${name.padEnd(58)} ${us.toFixed(1).padStart(6)} µs`);
  return us;
}

console.log(`the benchmark's request: ${rawBody.length} bytes of GitHub issues.opened\n`);
const parsed = github.inbound.parse(inbound);
if (!("events" in parsed) || parsed.events.length !== 1) throw new Error("the benchmark's request did not parse to one event");
const event = parsed.events[0];
const stored = JSON.stringify(event.data);
const forwarded = { id: "evt_1", connector: "github", trigger: event.trigger, account: "octocat", occurredAt: now, resource: null, payloadJson: stored };

const total = [
  time("verify the provider's signature (HMAC-SHA256 of the body)", () => github.inbound.verify(inbound, SECRET, now)),
  time("parse, route and shape the event (the connector's parser)", () => github.inbound.parse(inbound)),
  time("serialize what is stored (JSON.stringify of the event)", () => JSON.stringify(event.data)),
  time("build and sign the delivery (Standard Webhooks)", () =>
    buildForwardedRequest({ eventId: "evt_1", body: forwardedBody(forwarded, "dep_1"), at: now, userAgent: "Switchyard", operatorHeader: null, signing: [SIGNING_SECRET] }),
  ),
].reduce((sum, us) => sum + us, 0);
console.log(`${"in all".padEnd(58)} ${total.toFixed(1).padStart(6)} µs`);
