/**
 * Request bodies the proxy holds to send again (`x-switchyard-retries`) count against
 * PROXY_BUFFER_BUDGET for as long as they are held: here 8 MiB, so one deployment may hold 2 MiB.
 * The provider is slow: it reads each body (keeping only its size) and answers only when the test
 * lets it, so every body the proxy kept is still held while the next requests arrive.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { chunks, insertConnection, raw } from "./helpers.ts";

const MiB = 1024 * 1024;
let provider: Server;
let received = 0;
let release: () => void = () => {};
let held = new Promise<void>((resolve) => (release = resolve));
let app: TestApp;
let ada: Operator;
let other: Operator;

beforeAll(async () => {
  provider = createServer((req, res) => {
    req.on("data", () => {});
    req.on("end", () => {
      received++;
      void held.then(() => res.writeHead(201, { "content-type": "application/json" }).end('{"ok":true}'));
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  app = await startTestApp({ CONNECTOR_GITHUB_API_URL: url, PROXY_BUFFER_BUDGET: String(8 * MiB), PROXY_MAX_BODY: String(4 * MiB) });
  [ada, other] = [await createOperator(app, "Ada"), await createOperator(app, "Other")];
  for (const operator of [ada, other]) await insertConnection(app, { deploymentId: operator.deploymentId, connector: "github", account: "slow", accessToken: "gho_slow" });
}, 60_000);
afterAll(async () => {
  release();
  await app?.close();
  await new Promise((resolve) => provider?.close(resolve));
});

const upload = (operator: Operator, bytes: number, retries?: string) =>
  raw(`${app.url}/api/v1/proxy/github/slow/upload`, {
    method: "POST",
    headers: { "x-api-key": operator.apiKey, "content-type": "application/octet-stream", "content-length": String(bytes), ...(retries ? { "x-switchyard-retries": retries } : {}) },
    // Made as it is sent: the test itself holds none of it.
    body: chunks(bytes / (64 * 1024)),
  });
const lets = () => {
  release();
  held = new Promise<void>((resolve) => (release = resolve));
};

describe("PROXY_BUFFER_BUDGET", () => {
  test("past a deployment's quarter, a call asking for retries is 503 server_busy with Retry-After; another deployment still has its share", async () => {
    received = 0;
    const calls = Array.from({ length: 10 }, () => upload(ada, 512 * 1024, "2"));
    // Four bodies of 512 KiB fill Ada's 2 MiB; the other six are refused before being read.
    const refused = (await Promise.all(calls.map((c) => Promise.race([c, new Promise<undefined>((r) => setTimeout(r, 3000))])))).filter((r) => r !== undefined);
    expect(refused).toHaveLength(6);
    for (const response of refused) {
      expect(response!.status).toBe(503);
      expect(JSON.parse(String(response!.body)).code).toBe("server_busy");
      expect(response!.headers["retry-after"]).toMatch(/^\d+$/);
      expect(response!.headers["x-switchyard-error"]).toBe("true");
    }
    await expect.poll(() => received).toBe(4);
    // Other's quarter is its own.
    const others = upload(other, 512 * 1024, "1");
    await expect.poll(() => received).toBe(5);
    lets();
    const answered = await Promise.all([...calls, others]);
    expect(answered.filter((r) => r.status === 201)).toHaveLength(5);
    // Once answered, the bodies are no longer held: the budget is free again.
    expect((await Promise.all([upload(ada, 512 * 1024, "1"), (async () => (await expect.poll(() => received).toBe(6), lets()))()]))[0].status).toBe(201);
  });

  test("a call without x-switchyard-retries is streamed once, never refused for the budget", async () => {
    received = 0;
    const calls = Array.from({ length: 8 }, () => upload(ada, 512 * 1024));
    await expect.poll(() => received).toBe(8);
    lets();
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual(Array(8).fill(201));
  });

  test("forty 1 MiB bodies to a slow provider: memory held stays near the budget, not forty MiB", async () => {
    received = 0;
    const before = process.memoryUsage().arrayBuffers;
    const calls = Array.from({ length: 40 }, () => upload(ada, MiB, "1"));
    // Ada's quarter holds two; the others are refused.
    const settled = await Promise.all(calls.map((c) => Promise.race([c, new Promise<undefined>((r) => setTimeout(r, 4000))])));
    expect(settled.filter((r) => r?.status === 503)).toHaveLength(38);
    await expect.poll(() => received).toBe(2);
    const grown = process.memoryUsage().arrayBuffers - before;
    lets();
    await Promise.all(calls);
    // Two bodies held (2 MiB) and what sockets buffer; unbounded, it was the forty.
    expect(grown).toBeLessThan(16 * MiB);
  });
});
