/**
 * The two commerce connectors that needed something of their own, end to end against fakes that
 * follow the providers' documented protocols:
 * - BigCommerce (developer.bigcommerce.com/docs/integrations/apps/guide/auth, …/rest-management/webhooks):
 *   the store's `context` comes back on the redirect and must go into the token request; calls go to
 *   `/stores/{store_hash}` with `X-Auth-Token`; one hook per scope (`POST /v3/hooks`), the
 *   subscription's secret in a custom header BigCommerce sends with every delivery; `DELETE /v3/hooks/{id}`.
 * - WooCommerce (woocommerce.github.io/woocommerce-rest-api-docs/#webhooks): the store is a whole
 *   host name given as `params[store]`; anything but a public host name is refused with a clear
 *   400; the unsigned `webhook_id=<id>` ping a new webhook sends is answered 200 and forwards nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount, requestAuthUrl } from "../helpers/connectFlow.ts";
import { BIGCOMMERCE_CONTEXT, BIGCOMMERCE_STORE_HASH, startFakeBigCommerce } from "../helpers/fakeProviders/bigcommerce.ts";
import type { DeclaredIdentity, FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { type FakeRequest, jsonReply, type RouteContext } from "../helpers/fakeProviders/oauthServer.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks } from "./fakeHooks.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers } from "./helpers.ts";

const bigcommerce = fakeHooks();
let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;

beforeAll(async () => {
  // BigCommerce takes the token in X-Auth-Token; the fake's grants are looked up as a Bearer token.
  const grantOf = (req: FakeRequest, ctx: RouteContext<DeclaredIdentity>) => {
    const token = req.headers["x-auth-token"];
    return token && !req.headers.authorization ? ctx.authenticate({ ...req, headers: { ...req.headers, authorization: `Bearer ${String(token)}` } }) : undefined;
  };
  const hooksPath = `/api/stores/${BIGCOMMERCE_STORE_HASH}/v3/hooks`;
  fake = await startFakeBigCommerce([
    {
      method: "POST",
      path: hooksPath,
      handle(req, ctx) {
        const grant = grantOf(req, ctx);
        const body = bigcommerce.record(req, grant);
        if (!grant) return jsonReply(401, { status: 401, title: "Unauthorized" });
        if (typeof body.scope !== "string" || typeof body.destination !== "string" || !/^https?:\/\//.test(body.destination)) {
          return jsonReply(422, { status: 422, title: "Invalid hook" });
        }
        const hook = bigcommerce.add(grant.identity.id, body);
        return jsonReply(200, { data: { id: Number(hook.id), client_id: "CLIENT", store_hash: BIGCOMMERCE_STORE_HASH, ...body, created_at: 1767261600, updated_at: 1767261600 }, meta: {} });
      },
    },
    {
      method: "DELETE",
      path: new RegExp(`^${hooksPath}/(\\d+)$`),
      handle(req, ctx, [id]) {
        const grant = grantOf(req, ctx);
        bigcommerce.record(req, grant);
        if (!grant) return jsonReply(401, { status: 401, title: "Unauthorized" });
        const hook = bigcommerce.hooks.get(id);
        if (!bigcommerce.hooks.delete(id)) return jsonReply(404, { status: 404, title: "Not found" });
        return jsonReply(200, { data: { id: Number(id), ...hook!.body }, meta: {} });
      },
    },
  ]);
  app = await startTestApp(fake.env());
  ada = await createOperator(app);
  const triggers = ["order_created", "customer_created"].map((trigger) => ({ connector: "bigcommerce", trigger }));
  await listTriggers(app, ada, triggers);
  const account = await connectAccount(app, ada, { connector: "bigcommerce", account: "alice", provider: fake });
  accountId = account.id;
  expect(account.externalId).toBe(BIGCOMMERCE_CONTEXT);
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const delivery = (scope: string, id: number) => JSON.stringify({ created_at: 1767261600, store_id: "1025646", producer: BIGCOMMERCE_CONTEXT, scope, hash: `h${id}`, data: { type: scope.split("/")[1], id } });
const deliver = (url: string, body: string, token?: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(token === undefined ? {} : { "x-switchyard-token": token }) }, body });

describe("a BigCommerce store connected through the app's OAuth flow", () => {
  test("gets one hook per listed scope on its own store, made with its token, each with a secret header of its own", async () => {
    await app.app.subscriptions.runOnce(true);
    const hooks = bigcommerce.live();
    expect(hooks.map((h) => h.body.scope).sort()).toEqual(["store/customer/created", "store/order/created"]);
    for (const hook of hooks) {
      expect(hook.body).toMatchObject({ is_active: true });
      expect(hook.body.destination).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/bigcommerce\\?subscription=psub_`));
      expect(String(hook.body.headers["X-Switchyard-Token"])).toMatch(/^.{24,}$/);
    }
    expect(hooks[0].body.headers["X-Switchyard-Token"]).not.toBe(hooks[1].body.headers["X-Switchyard-Token"]);
    const subs = await accountSubscriptions(app, ada, accountId);
    expect(subs.map((s) => [s.resource, s.status, s.lastError]).sort()).toEqual([
      ["store/customer/created", "ACTIVE", null],
      ["store/order/created", "ACTIVE", null],
    ]);
  });

  test("a delivery carrying its hook's header is forwarded for the store; a wrong, missing or other hook's header is refused", async () => {
    const order = bigcommerce.live().find((h) => h.body.scope === "store/order/created")!;
    const customer = bigcommerce.live().find((h) => h.body.scope === "store/customer/created")!;
    const body = delivery("store/order/created", 250);
    expect((await deliver(order.body.destination, body, order.body.headers["X-Switchyard-Token"])).status).toBe(200);
    const events = () => storedEvents(app, ada, "bigcommerce");
    expect((await events()).map((e) => [e.trigger, e.account])).toEqual([["order_created", "alice"]]);
    const other = delivery("store/order/created", 251);
    for (const token of ["not-the-hook-secret", customer.body.headers["X-Switchyard-Token"], undefined]) {
      const response = await deliver(order.body.destination, other, token);
      expect(response.status).toBe(401);
      expect((await response.json()).code).toBe("invalid_signature");
    }
    expect(await events()).toHaveLength(1);
  });

  test("its hooks are deleted at BigCommerce on disconnect, with its token", async () => {
    const ids = bigcommerce.live().map((h) => h.id);
    await disconnect(app, ada, accountId);
    expect(bigcommerce.made("DELETE").map((c) => c.path).sort()).toEqual(ids.map((id) => `/api/stores/${BIGCOMMERCE_STORE_HASH}/v3/hooks/${id}`).sort());
    expect(bigcommerce.made("DELETE").every((c) => c.owner !== null)).toBe(true);
    expect(bigcommerce.live()).toHaveLength(0);
  });
});

describe("a WooCommerce store's host name", () => {
  const ask = (store: string) => requestAuthUrl(app, ada.apiKey, "woocommerce", "bob", { "params[store]": store });

  test("is a public host name: with a scheme, a path, a port, user information, an IP address or a private name it is refused with a clear 400", async () => {
    for (const store of ["https://shop.example.com", "shop.example.com/wp", "shop.example.com:8443", "admin@shop.example.com", "10.0.0.5", "127.0.0.1", "[::1]", "localhost", "shop.internal", "shop", "shop.example.com."]) {
      const response = await ask(store);
      expect(response.status, store).toBe(400);
      const body = await response.json();
      expect(body.code, store).toBe("invalid_parameter");
      expect(body.detail ?? body.message ?? JSON.stringify(body), store).toContain("params[store]");
    }
  });

  test("any case of a public name is accepted, kept lower-cased", async () => {
    const response = await ask("Shop.Example.COM");
    expect(response.status).toBe(200);
  });

  test("the ping a new WooCommerce webhook sends is answered 200 and forwards nothing", async () => {
    const before = (await storedEvents(app, ada)).length;
    const response = await fetch(`${app.url}/webhooks/${ada.deploymentId}/woocommerce?subscription=psub_unknown`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "webhook_id=17",
    });
    expect(response.status).toBe(200);
    expect(await storedEvents(app, ada)).toHaveLength(before);
    // Anything else unsigned at the same URL is still refused.
    const forged = await fetch(`${app.url}/webhooks/${ada.deploymentId}/woocommerce?subscription=psub_unknown`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "webhook_id=17&status=completed",
    });
    expect(forged.status).toBe(401);
  });
});
