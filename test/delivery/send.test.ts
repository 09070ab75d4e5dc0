import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent } from "undici";
import { afterAll, beforeAll, expect, test } from "vitest";
import { RESPONSE_BODY_LIMIT, send } from "../../src/delivery/send.ts";
import { scaled } from "../helpers/timing.ts";

/**
 * One attempt never outlasts the delivery timeout, however the receiver stalls: before its answer
 * (no answer) or inside its body (the answer as far as it came).
 */
let receiver: Server;
let url: string;
const dispatcher = new Agent();
/**
 * Long enough for the stalled receiver's status line to arrive on a loaded machine (at 300 ms a CI
 * run under load 6 cut the attempt before it), and above a second, where undici counts its own
 * per-phase timeouts in ticks of 499 ms (undici/lib/util/timers.js): 2 ticks and 498 ms is where
 * they could end an attempt furthest ahead of its deadline (after 998 ms of 1,496). send's own
 * deadline must be the one that ends it.
 */
const TIMEOUT_MS = 1_496;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    if (request.url === "/silent") return; // never answers
    if (request.url === "/stalled-body") {
      response.writeHead(200, { "content-type": "text/plain" });
      response.write("part of it"); // and never the rest
      return;
    }
    if (request.url === "/longer-than-kept") {
      response.writeHead(200, { "content-type": "text/plain" });
      response.write("x".repeat(RESPONSE_BODY_LIMIT + 1024)); // and never the end
      return;
    }
    response.end("ok");
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await dispatcher.close();
});

const attempt = (path: string) => send(dispatcher, false, { url: `${url}${path}`, headers: { "content-type": "application/json" }, body: "{}" }, TIMEOUT_MS);

test("a receiver that never answers ends the attempt at the timeout, as no answer", async () => {
  const result = await attempt("/silent");
  expect(result).toMatchObject({ statusCode: null, error: `no answer within ${TIMEOUT_MS} ms`, responseBody: null });
  expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
});

test("a receiver that answers and then stalls its body ends the attempt at the timeout, with its status and what came of the body", async () => {
  // undici's timers tick every 499 ms while one of them is pending: a silent request sent a quarter
  // second before sets them ticking out of step with this attempt, as other deliveries do in production.
  const ticking = attempt("/silent");
  await new Promise((resolve) => setTimeout(resolve, 250));
  const result = await attempt("/stalled-body");
  expect(result).toMatchObject({ statusCode: 200, error: null, responseBody: "part of it" });
  expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
  await ticking;
});

test("an answer within the timeout is recorded as it came", async () => {
  // A timeout with room for a loaded machine: 300 ms timed out an "ok" in CI.
  const result = await send(dispatcher, false, { url: `${url}/fine`, headers: { "content-type": "application/json" }, body: "{}" }, scaled(30_000));
  expect(result).toMatchObject({ statusCode: 200, error: null, responseBody: "ok" });
});

test("an answer longer than the attempt log keeps ends the attempt once that much came, not at the timeout", async () => {
  const timeoutMs = scaled(30_000);
  const result = await send(dispatcher, false, { url: `${url}/longer-than-kept`, headers: {}, body: "{}" }, timeoutMs);
  expect(result).toMatchObject({ statusCode: 200, error: null, responseBody: "x".repeat(RESPONSE_BODY_LIMIT) });
  expect(result.durationMs).toBeLessThan(timeoutMs);
});
