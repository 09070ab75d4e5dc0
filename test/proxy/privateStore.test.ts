/**
 * A WooCommerce store is a host its tenant names (`params[store]`), so in production every call to it
 * first checks where the name points (src/net/ssrf.ts): a store whose name resolves to the service's
 * own network is refused before anything is sent. Test apps allow private addresses, so this one
 * runs in production, and the names' DNS answers are stood in for by the resolver every lookup goes
 * through (`dns.lookup`, test/helpers/dnsStandIn.mjs): `shop.example.com` resolves to
 * 127.0.0.1, where a listener counts every connection, and `store.example.net` to 10.0.0.7.
 */
import net from "node:net";
import tls from "node:tls";
import { syncBuiltinESMExports } from "node:module";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDnsStandIn } from "../helpers/dnsStandIn.mjs";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { insertConnection, raw } from "./helpers.ts";

const STORES: Record<string, string> = { "shop.example.com": "127.0.0.1", "store.example.net": "10.0.0.7" };
let restoreDns: (() => void) | undefined;
let listener: Server;
let connections = 0;
/**
 * `rebind.example.com` answers a public address (8.8.8.8) to its first lookup and 127.0.0.1 to the
 * next (DNS rebinding). A socket dialled at the public answer is sent to a second listener on
 * 127.0.0.2 (the "public" store) instead — no traffic leaves this machine — by a wrapper of the
 * resolver net/tls.connect are handed (see `dialled`).
 */
let rebindLookups = 0;
let publicListener: Server;
let publicConnections = 0;
const realConnect = { net: net.connect, tls: tls.connect };
type Resolver = (host: string, options: unknown, callback: (error: Error | null, address: unknown, family?: number) => void) => void;
const toLoopback = (address: unknown): unknown =>
  Array.isArray(address) ? address.map((a: { address: string; family: number }) => ({ ...a, address: a.address === "8.8.8.8" ? "127.0.0.2" : a.address })) : address === "8.8.8.8" ? "127.0.0.2" : address;
function dialled<T extends (...args: never[]) => unknown>(connect: T): T {
  return ((options: { lookup?: Resolver }, ...rest: unknown[]) => {
    const lookup = options?.lookup;
    const wrapped = lookup ? { ...options, lookup: ((host, opts, cb) => lookup(host, opts, (e, a, f) => cb(e, toLoopback(a), f))) as Resolver } : options;
    return (connect as unknown as (...args: unknown[]) => unknown)(wrapped, ...rest);
  }) as unknown as T;
}
let app: TestApp;
let ada: Operator;

function standInAnswer(hostname: string): string | undefined {
  if (hostname !== "rebind.example.com") return STORES[hostname];
  rebindLookups++;
  return rebindLookups % 2 === 1 ? "8.8.8.8" : "127.0.0.1";
}

beforeAll(async () => {
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const port = (listener.address() as AddressInfo).port;
  publicListener = createServer((socket) => {
    publicConnections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => publicListener.listen(port, "127.0.0.2", resolve));
  net.connect = dialled(realConnect.net);
  tls.connect = dialled(realConnect.tls);
  restoreDns = installDnsStandIn(standInAnswer);
  // The store's own host, at the listener's port (https, as production requires).
  app = await startTestApp({ NODE_ENV: "production", PROXY_TIMEOUT: "2s", CONNECTOR_WOOCOMMERCE_API_URL: `https://{store}:${port}` });
  ada = await createOperator(app, "Ada");
}, 60_000);
afterAll(async () => {
  await app?.close();
  restoreDns?.();
  net.connect = realConnect.net;
  tls.connect = realConnect.tls;
  syncBuiltinESMExports();
  await new Promise((resolve) => listener?.close(resolve));
  await new Promise((resolve) => publicListener?.close(resolve));
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

describe("in production, a WooCommerce store whose name is rebound between lookups", () => {
  test("the address the guard checked is the one dialled: one lookup per call, nothing reaches 127.0.0.1", async () => {
    const account = "owner-rebind";
    await insertConnection(app, { deploymentId: ada.deploymentId, connector: "woocommerce", account, accessToken: Buffer.from("ck_key:cs_secret").toString("base64"), params: { store: "rebind.example.com" } });
    connections = 0;
    rebindLookups = 0;
    const response = await raw(`${app.url}/api/v1/proxy/woocommerce/${account}/wp-json/wc/v3/orders`, { headers: { "x-api-key": ada.apiKey } });
    // The "public" store hangs up (no TLS here): 502, but it was the one dialled.
    expect(response.status).toBe(502);
    expect(publicConnections).toBeGreaterThanOrEqual(1);
    expect(connections).toBe(0);
    expect(rebindLookups).toBe(1);
  });

  test("no socket is reused past its check: each call to the store resolves its name again", async () => {
    rebindLookups = 0;
    connections = 0;
    for (let i = 0; i < 2; i++) await raw(`${app.url}/api/v1/proxy/woocommerce/owner-rebind/wp-json/wc/v3/orders`, { headers: { "x-api-key": ada.apiKey } });
    // Second call: the name now answers 127.0.0.1, and is refused at dial time.
    expect(rebindLookups).toBe(2);
    expect(connections).toBe(0);
  });
});
