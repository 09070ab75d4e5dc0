import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { lazyAgent, loadUndici, type Undici, undiciTimeoutOfAtLeast } from "../../src/net/undici.ts";

let server: Server;
let url: URL;
let requests = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    // /silent never answers: what a timeout ends.
    if (req.url !== "/silent") res.end("served");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("lazyAgent", () => {
  test("undici is not loaded until the agent is first asked for, and one agent serves every call", async () => {
    let loads = 0;
    const agent = lazyAgent({}, () => {
      loads++;
      return loadUndici();
    });
    expect(loads).toBe(0);

    const first = await agent.fetch(url, {});
    expect(await first.text()).toBe("served");
    const second = await agent.fetch(url, { method: "POST", body: "x" });
    expect(second.status).toBe(200);
    await second.arrayBuffer();
    expect(await agent.get()).toBe(await agent.get());
    expect(loads).toBe(1);

    await agent.close();
    expect(((await agent.get()) as Agent).closed).toBe(true);
  });

  test("closing an agent never asked for loads nothing and makes nothing", async () => {
    let loads = 0;
    const agent = lazyAgent({}, () => {
      loads++;
      return loadUndici();
    });
    await expect(agent.close()).resolves.toBeUndefined();
    expect(loads).toBe(0);
  });

  test("a failed load rejects each call with its error, and closing afterwards still resolves", async () => {
    const agent = lazyAgent({}, () => Promise.reject(new Error("undici is missing")));
    const before = requests;
    await expect(agent.fetch(url, {})).rejects.toThrow("undici is missing");
    await expect(agent.get()).rejects.toThrow("undici is missing");
    expect(requests).toBe(before);
    await expect(agent.close()).resolves.toBeUndefined();
  });
});

describe("undiciTimeoutOfAtLeast", () => {
  /** How long undici waits for the headers of /silent, given `timeoutMs` through undiciTimeoutOfAtLeast. */
  async function headersWait(agent: Agent, request: Undici["request"], timeoutMs: number) {
    const started = performance.now();
    const error = await request(new URL("/silent", url), { dispatcher: agent, headersTimeout: undiciTimeoutOfAtLeast(timeoutMs) }).then(
      () => undefined,
      (failed: { code?: string }) => failed,
    );
    expect(error?.code).toBe("UND_ERR_HEADERS_TIMEOUT");
    return performance.now() - started;
  }

  test("ends a wait no sooner than asked, a second or less and longer, while undici's coarse timer ticks", async () => {
    const { Agent, request } = await loadUndici();
    const agent = new Agent();
    try {
      // A longer wait already under way starts undici's 499 ms tick, as other calls do in production;
      // a timeout of over a second given as it is then ended ~300 ms early (test/proxy/proxy.test.ts).
      const ticking = headersWait(agent, request, 2_000);
      await new Promise((resolve) => setTimeout(resolve, 250));
      const [short, long] = await Promise.all([headersWait(agent, request, 800), headersWait(agent, request, 1_496)]);
      // Timers fire up to a millisecond before their time.
      expect(short).toBeGreaterThanOrEqual(800 - 2);
      expect(long).toBeGreaterThanOrEqual(1_496 - 2);
      await ticking;
    } finally {
      await agent.destroy();
    }
  });
});
