import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiBaseError, apiSchema, resolveApiBase } from "../../src/connectors/api.ts";
import { jsonPath } from "../../src/connectors/fields.ts";
import { pollingSchema } from "../../src/connectors/polling.ts";
import { findConnector } from "../../src/connectors/registry.ts";
import { apiFetch, readPolledTrigger } from "../../src/polling/reader.ts";
import { callProvider, SubscriptionCallError } from "../../src/subscriptions/provider.ts";

/**
 * The poller's reads and the subscription manager's calls go to the connection's declared API base
 * (a per-tenant one filled from its params or identity metadata) with the token in the connector's
 * declared auth style — not to `oauth.apiUrl` with a bearer token. A fake API serves one tenant's
 * list under /tenants/{tenant} and refuses anything else.
 */
const TOKEN = "tenant-token";
const now = new Date("2026-03-01T12:00:00.000Z");
let server: Server;
let apiUrl: string;
const seen: { url: URL; headers: IncomingMessage["headers"]; method: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fake");
      seen.push({ url, headers: req.headers, method: req.method ?? "", body });
      const answer = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      const headerToken = req.headers["x-api-token"] === `Token ${TOKEN}`;
      const queryToken = url.searchParams.get("access_token") === TOKEN;
      if (!headerToken && !queryToken) return answer(401, { error: "no token" });
      if (req.headers.authorization) return answer(400, { error: "unexpected Authorization header" });
      if (url.pathname === "/v1/tenants/acme/items") {
        const since = url.searchParams.get("since");
        const items = [
          { id: "a", updated: "2026-03-01T10:00:00.000Z" },
          { id: "b", updated: "2026-03-01T11:00:00.000Z" },
        ].filter((item) => !since || item.updated > since);
        return answer(200, { items });
      }
      if (url.pathname === "/v1/tenants/acme/hooks" && req.method === "POST") return answer(201, { id: "hook-1" });
      answer(404, { error: "not found" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

const headerApi = apiSchema.parse({ connectionBaseUrl: "{baseUrl}/tenants/{tenant}", auth: { style: "header", header: "x-api-token", prefix: "Token " } });
const queryApi = apiSchema.parse({ connectionBaseUrl: "{baseUrl}/tenants/{tenant}", auth: { style: "query", param: "access_token" }, placeholders: { tenant: "site.key" } });
const polled = pollingSchema(jsonPath).parse({
  triggers: { item_changed: { request: { path: "/items", query: { since: "{cursor}" } }, items: "items", id: "id", version: "updated", cursor: { from: "version" } } },
}).triggers.item_changed;

test("a polled trigger is read under the tenant's base, the token in the declared header", async () => {
  const base = resolveApiBase(headerApi, apiUrl, { params: { tenant: "acme" }, metadata: null }, { allowHttp: false });
  expect(base.href).toBe(`${apiUrl}/tenants/acme`);
  const fetch = apiFetch(headerApi, base, TOKEN);
  const first = await readPolledTrigger("item_changed", polled, undefined, fetch, now);
  expect(first).toEqual({ events: [], cursor: "2026-03-01T11:00:00.000Z" });
  const second = await readPolledTrigger("item_changed", polled, "2026-03-01T10:30:00.000Z", fetch, now);
  expect(second.events.map((e) => e.dedupeKey)).toEqual(["poll:item_changed:b@2026-03-01T11:00:00.000Z"]);
  expect(seen.at(-1)!.url.pathname).toBe("/v1/tenants/acme/items");
  expect(seen.at(-1)!.url.searchParams.get("since")).toBe("2026-03-01T10:30:00.000Z");
  expect(seen.at(-1)!.headers["x-api-token"]).toBe(`Token ${TOKEN}`);
  expect(seen.at(-1)!.headers.authorization).toBeUndefined();
});

test("another tenant's base is another path: the fake answers 404, and the error carries no token", async () => {
  const base = resolveApiBase(queryApi, apiUrl, { params: {}, metadata: { site: { key: "globex" } } }, { allowHttp: false });
  const error = await apiFetch(queryApi, base, TOKEN)("/items", {}).catch((e: Error & { status?: number }) => e);
  expect(error).toMatchObject({ status: 404 });
  expect(String((error as Error).message)).not.toContain(TOKEN);
  expect(seen.at(-1)!.url.pathname).toBe("/v1/tenants/globex/items");
});

test("a connection without the tenant value, or with an unsafe one, has no base", () => {
  expect(() => resolveApiBase(headerApi, apiUrl, { params: {}, metadata: null }, { allowHttp: false })).toThrow(ApiBaseError);
  expect(() => resolveApiBase(headerApi, apiUrl, { params: { tenant: "../admin" }, metadata: null }, { allowHttp: false })).toThrow(ApiBaseError);
});

test("a subscription call goes under the tenant's base with the token in the declared query parameter", async () => {
  const base = resolveApiBase(queryApi, apiUrl, { params: {}, metadata: { site: { key: "acme" } } }, { allowHttp: false });
  const answer = await callProvider(
    { method: "POST", path: "/hooks", body: { url: "{notificationUrl}", events: "{events[]}" } },
    { notificationUrl: "https://switchyard.example/webhooks/d/x", events: ["item:changed"] },
    { api: queryApi, base, accessToken: TOKEN, timeoutMs: 5_000 },
  );
  expect(answer).toEqual({ id: "hook-1" });
  const request = seen.at(-1)!;
  expect(request.url.pathname).toBe("/v1/tenants/acme/hooks");
  expect(request.url.searchParams.get("access_token")).toBe(TOKEN);
  expect(request.headers.authorization).toBeUndefined();
  expect(JSON.parse(request.body)).toEqual({ url: "https://switchyard.example/webhooks/d/x", events: ["item:changed"] });

  const refused = await callProvider({ method: "DELETE", path: "/hooks/{providerId}" }, { providerId: "hook-1" }, { api: queryApi, base, accessToken: TOKEN, timeoutMs: 5_000 }).catch((e: SubscriptionCallError) => e);
  expect(refused).toBeInstanceOf(SubscriptionCallError);
  expect((refused as SubscriptionCallError).message).not.toContain(TOKEN);
});

test("a subscription call sends its declared query, its values filled, and its declared headers over the defaults", async () => {
  const base = resolveApiBase(queryApi, apiUrl, { params: {}, metadata: { site: { key: "acme" } } }, { allowHttp: false });
  await callProvider(
    { method: "POST", path: "/hooks", query: { target: "{notificationUrl}" }, headers: { accept: "application/vnd.acme+json" }, body: { on: true } },
    { notificationUrl: "https://switchyard.example/webhooks/d/x?a=1" },
    { api: queryApi, base, accessToken: TOKEN, timeoutMs: 5_000 },
  );
  const request = seen.at(-1)!;
  expect(request.url.pathname).toBe("/v1/tenants/acme/hooks");
  expect(request.url.searchParams.get("target")).toBe("https://switchyard.example/webhooks/d/x?a=1");
  expect(request.url.searchParams.get("access_token")).toBe(TOKEN);
  expect(request.headers.accept).toBe("application/vnd.acme+json");
  expect(request.headers["content-type"]).toBe("application/json");
});

test("Jira's declared base takes the cloud id from the connection's metadata", () => {
  const jira = findConnector("jira")!.declaration.api!;
  const base = resolveApiBase(jira, "https://api.atlassian.com", { params: {}, metadata: { sites: [{ cloudId: "11223344-a1b2-3b33-c444-def123456789", name: "acme" }] } }, { allowHttp: false });
  expect(base.href).toBe("https://api.atlassian.com/ex/jira/11223344-a1b2-3b33-c444-def123456789");
});

test("Mailchimp's declared base is the metadata's api_endpoint with the API's version, as its SDK's basePath", () => {
  const mailchimp = findConnector("mailchimp")!.declaration.api!;
  const connection = { params: {}, metadata: { dc: "us19", apiEndpoint: "https://us19.api.mailchimp.com" } };
  expect(resolveApiBase(mailchimp, "https://login.mailchimp.com", connection, { allowHttp: false }).href).toBe("https://us19.api.mailchimp.com/3.0");
  // Only an https origin is taken from the provider's answer.
  expect(() => resolveApiBase(mailchimp, "https://login.mailchimp.com", { params: {}, metadata: { apiEndpoint: "http://us19.api.mailchimp.com" } }, { allowHttp: false })).toThrow(ApiBaseError);
});

test("a polled path's per-account values come from the connection's params, then its metadata, and must be plain names", async () => {
  const { fillPath } = await import("../../src/connectors/api.ts");
  const api = apiSchema.parse({ placeholders: { group: "groups[].guid" } });
  expect(fillPath(api, "/v4/groups/{group}/bitlinks", { params: {}, metadata: { groups: [{ guid: "Ba1bc23dE4F" }] } })).toBe("/v4/groups/Ba1bc23dE4F/bitlinks");
  expect(fillPath(api, "/v4/groups/{group}/bitlinks", { params: { group: "Other1" }, metadata: { groups: [{ guid: "Ba1bc23dE4F" }] } })).toBe("/v4/groups/Other1/bitlinks");
  expect(() => fillPath(api, "/v4/groups/{group}/bitlinks", { params: {}, metadata: {} })).toThrow(ApiBaseError);
  expect(() => fillPath(api, "/v4/groups/{group}/bitlinks", { params: {}, metadata: { groups: [{ guid: "../admin" }] } })).toThrow(ApiBaseError);
});
