import { request as httpRequest, type ClientRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * Request bodies are read before the request can be authenticated (a webhook's signature covers
 * its body), so how many may be in flight, from one address and in all, and for how long, is
 * bounded — and a refusal comes before anything is read.
 */

interface Upload {
  request: ClientRequest;
  response: Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>;
}

/** A POST that declares `declared` bytes and sends only `sent` of them (an unfinished upload). */
function upload(app: TestApp, headers: Record<string, string>, declared = 100_000, sent = "{"): Upload {
  const request = httpRequest(`${app.url}/graphql`, {
    method: "POST",
    agent: false,
    headers: { "content-type": "application/json", "content-length": String(declared), "x-api-key": "sy_test_unchecked", ...headers },
  });
  const response = new Promise<Awaited<Upload["response"]>>((resolve, reject) => {
    request.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    request.on("error", reject);
  });
  response.catch(() => {}); // aborted on purpose in some stories
  request.flushHeaders();
  if (sent) request.write(sent);
  return { request, response };
}

async function metric(app: TestApp, line: RegExp): Promise<number | undefined> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  for (const row of text.split("\n")) {
    const match = line.exec(row);
    if (match) return Number(row.slice(row.lastIndexOf(" ") + 1));
  }
  return undefined;
}

const inFlight = (app: TestApp) => metric(app, /^switchyard_http_bodies_in_flight /);

/** Waits until the service is reading `n` bodies (the uploads reached it). */
async function untilInFlight(app: TestApp, n: number) {
  while ((await inFlight(app)) !== n) await new Promise((resolve) => setTimeout(resolve, 20));
}

// One app for the bounds in flight and for the anonymous body limit (its test sends one request at a
// time, well within the bounds): each app is a start-up of its own database.
let app: TestApp;
let ada: Operator;
beforeAll(async () => {
  app = await startTestApp({ BODY_MAX_IN_FLIGHT: "3", BODY_MAX_IN_FLIGHT_PER_ADDRESS: "2", TRUST_PROXY: "1", BODY_TIMEOUT: "5m" });
  ada = await createOperator(app, "Ada");
});
afterAll(() => app.close());

describe("bodies in flight", () => {

  test("one address past its bound gets 429, everyone past the global bound 503, both before their body is read", async () => {
    const a1 = upload(app, { "x-forwarded-for": "203.0.113.1" });
    const a2 = upload(app, { "x-forwarded-for": "203.0.113.1" });
    await untilInFlight(app, 2);

    // No body is sent at all: the answer cannot have waited for it.
    const a3 = upload(app, { "x-forwarded-for": "203.0.113.1" }, 1000, "");
    const perAddress = await a3.response;
    expect(perAddress.status).toBe(429);
    expect(perAddress.headers["content-type"]).toBe("application/problem+json");
    expect(perAddress.headers["retry-after"]).toBe("5");
    expect(JSON.parse(perAddress.body)).toMatchObject({ status: 429, code: "rate_limited" });

    // Another address still gets in, up to the global bound.
    const b1 = upload(app, { "x-forwarded-for": "203.0.113.2" });
    await untilInFlight(app, 3);
    const c1 = upload(app, { "x-forwarded-for": "203.0.113.3" }, 1000, "");
    const global = await c1.response;
    expect(global.status).toBe(503);
    expect(global.headers["retry-after"]).toBe("5");
    expect(JSON.parse(global.body)).toMatchObject({ status: 503, code: "server_busy" });

    // Finished uploads free their places.
    const rest = (declared: number) => `"query":"{ viewer { id } }"${" ".repeat(declared - 29)}}`;
    for (const u of [a1, a2, b1]) u.request.end(rest(100_000));
    // Read in full and run: the key is not a real one.
    const answers = await Promise.all([a1, a2, b1].map((u) => u.response));
    expect(answers.map((r) => JSON.parse(r.body).errors[0].extensions.code)).toEqual(["UNAUTHENTICATED", "UNAUTHENTICATED", "UNAUTHENTICATED"]);
    expect(await inFlight(app)).toBe(0);
    const after = upload(app, { "x-forwarded-for": "203.0.113.1" }, 29, "");
    after.request.end(`{"query":"{ viewer { id } }"}`);
    expect(JSON.parse((await after.response).body).errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });

  test("an upload abandoned midway is a client abort (499), not a server error, and is not logged as one", async () => {
    const error = vi.spyOn(app.app.logger, "error");
    const before = (await metric(app, /^switchyard_http_requests_total\{route="\/graphql",status="499"\}/)) ?? 0;
    const abandoned = upload(app, { "x-forwarded-for": "203.0.113.9" });
    await untilInFlight(app, 1);
    abandoned.request.destroy();
    while ((await metric(app, /^switchyard_http_requests_total\{route="\/graphql",status="499"\}/)) !== before + 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await metric(app, /^switchyard_http_requests_total\{route="\/graphql",status="500"\}/)).toBeUndefined();
    expect(error).not.toHaveBeenCalled();
    expect(await inFlight(app)).toBe(0);
  });
});

describe("a body that trickles in", () => {
  let impatient: TestApp;
  beforeAll(async () => {
    impatient = await startTestApp({ BODY_TIMEOUT: "300ms" });
  });
  afterAll(() => impatient.close());

  test("is answered 408 once BODY_TIMEOUT has passed, and its place is freed", async () => {
    const slow = upload(impatient, {});
    const answer = await slow.response;
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 408, code: "request_timeout" });
    expect(await inFlight(impatient)).toBe(0);
  });
});

describe("an anonymous GraphQL request", () => {
  test("may send 64 KiB; a caller with credentials the usual 1 MiB", async () => {
    const body = JSON.stringify({ query: "{ viewer { id } }", variables: { pad: "x".repeat(100 * 1024) } });
    const anonymous = await fetch(`${app.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(anonymous.status).toBe(413);
    expect(await anonymous.json()).toMatchObject({ code: "payload_too_large" });
    const signedIn = await fetch(`${app.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${ada.token}` }, body });
    expect(signedIn.status).toBe(200);
    expect((await signedIn.json()).data.viewer.id).toBe(ada.userId);
  });
});
