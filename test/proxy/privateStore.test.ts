/**
 * A WooCommerce store is a host its tenant names (`params[store]`), so in production every call to it
 * first checks where the name points (src/net/ssrf.ts): a store whose name resolves to the service's
 * own network is refused before anything is sent. Test apps allow private addresses, so this one
 * runs in production, and the names' DNS answers are stood in for by the resolver every lookup goes
 * through (`dns.lookup`: the guard's and the sockets' alike): `shop.example.com` resolves to
 * 127.0.0.1, where a listener counts every connection, and `store.example.net` to 10.0.0.7.
 */
import dns from "node:dns";
import { syncBuiltinESMExports } from "node:module";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { insertConnection, raw } from "./helpers.ts";

const STORES: Record<string, string> = { "shop.example.com": "127.0.0.1", "store.example.net": "10.0.0.7" };
const realLookup = dns.lookup;
let listener: Server;
let connections = 0;
let app: TestApp;
let ada: Operator;

function standInLookup(hostname: string, options: unknown, callback?: unknown) {
  const cb = (typeof options === "function" ? options : callback) as (error: Error | null, address: unknown, family?: number) => void;
  const opts = (typeof options === "object" && options !== null ? options : {}) as { all?: boolean };
  const address = STORES[hostname];
  if (!address) return (realLookup as (...args: unknown[]) => void)(hostname, options, callback);
  process.nextTick(() => (opts.all ? cb(null, [{ address, family: 4 }]) : cb(null, address, 4)));
}

beforeAll(async () => {
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const port = (listener.address() as AddressInfo).port;
  dns.lookup = standInLookup as typeof dns.lookup;
  syncBuiltinESMExports();
  // The store's own host, at the listener's port (https, as production requires).
  app = await startTestApp({ NODE_ENV: "production", PROXY_TIMEOUT: "2s", CONNECTOR_WOOCOMMERCE_API_URL: `https://{store}:${port}` });
  ada = await createOperator(app, "Ada");
}, 60_000);
afterAll(async () => {
  await app?.close();
  dns.lookup = realLookup;
  syncBuiltinESMExports();
  await new Promise((resolve) => listener?.close(resolve));
});

describe("in production, a WooCommerce store whose name resolves to a private address", () => {
  test("the stand-in DNS answer is what a socket dials: shop.example.com reaches the listener", async () => {
    await new Promise<void>((resolve, reject) => {
      const socket = connect({ host: "shop.example.com", port: (listener.address() as AddressInfo).port }, () => resolve());
      socket.on("error", reject);
      socket.on("close", () => resolve());
    });
    await expect.poll(() => connections).toBe(1);
    connections = 0;
  });

  test.each([
    ["shop.example.com", "127.0.0.1"],
    ["store.example.net", "10.0.0.7"],
  ])("%s (%s) is refused at the proxy with 502 provider_unreachable, and no request leaves", async (store) => {
    // Connected while the name pointed elsewhere; its DNS answer has changed since (rebinding).
    const account = `owner-${store}`;
    await insertConnection(app, { deploymentId: ada.deploymentId, connector: "woocommerce", account, accessToken: Buffer.from("ck_key:cs_secret").toString("base64"), params: { store } });
    const response = await raw(`${app.url}/api/v1/proxy/woocommerce/${encodeURIComponent(account)}/orders`, { headers: { "x-api-key": ada.apiKey } });
    expect(response.status).toBe(502);
    const body = JSON.parse(response.body.toString()) as { code: string; detail: string };
    expect(body.code).toBe("provider_unreachable");
    // Nothing about where the name points, or what kind of address that is, is told.
    expect(response.body.toString()).not.toMatch(/127\.0\.0\.1|10\.0\.0\.7|loopback|private|resolves/);
    expect(connections).toBe(0);
  });
});
