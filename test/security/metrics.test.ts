import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

/** The label sets of switchyard_http_requests_total, as Prometheus would store them. */
async function requestSeries(): Promise<string[]> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("switchyard_http_requests_total{"))
    .map((line) => line.slice(0, line.lastIndexOf(" ")));
}

test("hundreds of random paths add no series: HTTP metrics are labelled by route pattern", async () => {
  const junk = () => randomBytes(6).toString("hex");
  const paths = [
    ...Array.from({ length: 100 }, () => `/connect/${junk()}`),
    ...Array.from({ length: 100 }, () => `/console/${junk()}/${junk()}`),
    ...Array.from({ length: 100 }, () => `/${junk()}/${junk()}`),
    ...Array.from({ length: 50 }, () => `/webhooks/${junk()}/${junk()}`),
  ];
  // Warm-up: one of each shape, so every pattern's series exists before counting.
  for (const path of [paths[0], paths[100], paths[200], paths[300]]) await fetch(`${app.url}${path}`);
  await fetch(`${app.url}${paths[300]}`, { method: "POST", body: "{}" });
  await requestSeries(); // its own series (/metrics) is counted after it answers
  const before = await requestSeries();

  for (let i = 0; i < paths.length; i += 25) {
    await Promise.all(paths.slice(i, i + 25).map(async (path) => (await fetch(`${app.url}${path}`)).arrayBuffer()));
  }
  await Promise.all(paths.slice(300).map(async (path) => (await fetch(`${app.url}${path}`, { method: "POST", body: "{}" })).arrayBuffer()));

  const after = await requestSeries();
  expect(after.filter((series) => !before.includes(series))).toEqual([]);
  const routes = new Set(after.map((series) => /route="([^"]*)"/.exec(series)?.[1]));
  expect(routes).toContain("/connect/:token");
  expect(routes).toContain("/console/*");
  expect(routes).toContain("/webhooks/:deploymentId/:connector");
  expect(routes).toContain("unmatched");
  for (const series of after) expect(series).not.toMatch(/[0-9a-f]{12}/);
});

describe("METRICS_TOKEN", () => {
  const token = randomBytes(24).toString("hex");
  let guarded: TestApp;
  beforeAll(async () => {
    guarded = await startTestApp({ METRICS_TOKEN: token });
  });
  afterAll(() => guarded?.close());
  const scrape = (headers: Record<string, string> = {}) => fetch(`${guarded.url}/metrics`, { headers });

  test("when set, /metrics without the bearer token, or with another one, is a 401 problem that reveals nothing", async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer wrong-token-wrong-token" }, { authorization: `Basic ${token}` }, { "x-api-key": token }];
    for (const headers of attempts) {
      const response = await scrape(headers);
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      const body = await response.text();
      expect(JSON.parse(body)).toMatchObject({ status: 401, code: "unauthenticated" });
      expect(body).not.toMatch(/switchyard_|process_cpu/);
      expect(body).not.toContain(token);
    }
  });

  test("with `Authorization: Bearer <token>` the scraper gets the series; without the setting /metrics stays open", async () => {
    const response = await scrape({ authorization: `Bearer ${token}` });
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/^switchyard_http_requests_total\{/m);
    expect((await fetch(`${app.url}/metrics`)).status).toBe(200);
  });

  test("a short token is refused at start-up", () => {
    expect(() => loadConfig({ ENCRYPTION_KEY: randomBytes(32).toString("base64"), METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
  });
});
