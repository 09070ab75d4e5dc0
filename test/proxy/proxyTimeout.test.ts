import { afterAll, beforeAll, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fakeProviders/github.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { type FakeGitHubApi, startFakeGitHubApi } from "./fakeGitHubApi.ts";
import { raw } from "./helpers.ts";

/**
 * Above a second undici counts its per-phase timeouts in ticks of 499 ms and dates a timer's start
 * back to the tick before it (undici/lib/util/timers.js): given PROXY_TIMEOUT as it is, a 1,496 ms
 * wait could end after 998 ms, depending on where the ticks stood when the request went out. The
 * caller was promised PROXY_TIMEOUT.
 */
const PROXY_TIMEOUT_MS = 1_496;

let github: FakeGitHub;
let api: FakeGitHubApi;
let app: TestApp;
let ada: Operator;

beforeAll(async () => {
  github = await startFakeGitHub({ autoApprove: true });
  api = await startFakeGitHubApi(github);
  app = await startTestApp({ ...github.env(), CONNECTOR_GITHUB_API_URL: api.url, PROXY_TIMEOUT: `${PROXY_TIMEOUT_MS}ms` });
  ada = await createOperator(app, "Ada");
  await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await api?.close();
  await github?.close();
});

/** A proxied call to the fake API's `/slow`, which answers after `ms`; resolves with its status and how long it took. */
async function slowCall(ms: number) {
  const started = performance.now();
  const response = await raw(`${app.url}/api/v1/proxy/github/alice/slow?ms=${ms}`, { headers: { "x-api-key": ada.apiKey } });
  return { status: response.status, code: JSON.parse(String(response.body)).code as string | undefined, elapsedMs: performance.now() - started };
}

test("a provider that does not answer gets 504 provider_timeout no sooner than PROXY_TIMEOUT, wherever undici's timer ticks stand", async () => {
  // A call already waiting a quarter second sets undici's ticks going out of step with the next
  // one, as other proxied calls do in production (without the fix this one ended after ~1,250 ms).
  const waiting = slowCall(60_000);
  await new Promise((resolve) => setTimeout(resolve, 250));
  const timedOut = await slowCall(60_000);
  expect(timedOut).toMatchObject({ status: 504, code: "provider_timeout" });
  expect(timedOut.elapsedMs).toBeGreaterThanOrEqual(PROXY_TIMEOUT_MS - 10);
  expect(await waiting).toMatchObject({ status: 504, code: "provider_timeout" });
});
