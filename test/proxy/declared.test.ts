import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { apiSchema, declaredRateLimitWaitMs, resolveApiBase } from "../../src/connectors/api.ts";
import { connectionApi } from "../../src/connectors/connectionApi.ts";
import { connectorEnvPrefix, findConnector } from "../../src/connectors/registry.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { insertConnection, raw } from "./helpers.ts";

describe("the api section", () => {
  const api = (input: unknown) => apiSchema.parse(input);

  test("fills a tenant's API base from params first, then metadata; values must be plain names", () => {
    const jira = api({ connectionBaseUrl: "{baseUrl}/ex/jira/{cloudId}", placeholders: { cloudId: "sites[].cloudId" } });
    const metadata = { sites: [{ cloudId: "1324a887-45db-1bf4-1e99-ef0ff456d421" }, { cloudId: "second" }] };
    expect(resolveApiBase(jira, "https://api.atlassian.com", { params: {}, metadata }, { allowHttp: false }).href).toBe(
      "https://api.atlassian.com/ex/jira/1324a887-45db-1bf4-1e99-ef0ff456d421",
    );
    expect(resolveApiBase(jira, "https://api.atlassian.com", { params: { cloudId: "second" }, metadata }, { allowHttp: false }).pathname).toBe("/ex/jira/second");
    for (const bad of ["../admin", "a/b", "a.evil.com", "%2e%2e", "", "x?y"]) {
      expect(() => resolveApiBase(jira, "https://api.atlassian.com", { params: { cloudId: bad }, metadata }, { allowHttp: false }), bad).toThrow(/plain name/);
    }
    expect(() => resolveApiBase(jira, "https://api.atlassian.com", { params: {}, metadata: {} }, { allowHttp: false })).toThrow(/no cloudId/);

    const zendesk = api({ connectionBaseUrl: "https://{subdomain}.zendesk.com" });
    expect(resolveApiBase(zendesk, "unused", { params: { subdomain: "acme" }, metadata: {} }, { allowHttp: false }).href).toBe("https://acme.zendesk.com/");
    expect(() => resolveApiBase(zendesk, "unused", { params: { subdomain: "evil.com/x" }, metadata: {} }, { allowHttp: false })).toThrow();
  });

  test("a value that is the whole base gives only its https origin", () => {
    const salesforce = api({ connectionBaseUrl: "{instanceUrl}", placeholders: { instanceUrl: "restUrl" } });
    const metadata = { restUrl: "https://acme.my.salesforce.com/services/data/v{version}/" };
    expect(resolveApiBase(salesforce, "https://login.salesforce.com", { params: {}, metadata }, { allowHttp: false }).href).toBe("https://acme.my.salesforce.com/");
    for (const bad of ["http://acme.my.salesforce.com", "javascript:alert(1)", "https://user:pw@acme.my.salesforce.com", "not a url"]) {
      expect(() => resolveApiBase(salesforce, "x", { params: { instanceUrl: bad }, metadata: {} }, { allowHttp: false }), bad).toThrow();
    }
  });

  test("the catalog's bases where the identity host is not the API's, and under an API URL override", () => {
    const base = (connector: string, metadata: object, overridden = false) => {
      const def = findConnector(connector)!;
      const env = overridden ? { [`${connectorEnvPrefix(def)}API_URL`]: "http://fake/p" } : {};
      return connectionApi(def, env, { params: {}, metadata }, { allowHttp: overridden }).base.href;
    };
    expect(base("quickbooks", {})).toBe("https://quickbooks.api.intuit.com/");
    expect(base("harvest", {})).toBe("https://api.harvestapp.com/");
    expect(base("docusign", { baseUri: "https://na3.docusign.net" })).toBe("https://na3.docusign.net/restapi");
    // Google Sheets and Docs: the proxy goes to the API's own host, the declared reads (Drive's) stay on www.googleapis.com.
    for (const [connector, host] of [["google_sheets", "https://sheets.googleapis.com/"], ["google_docs", "https://docs.googleapis.com/"]]) {
      const def = findConnector(connector)!;
      const route = (proxied: boolean) => connectionApi(def, {}, { params: {}, metadata: {} }, { allowHttp: false, proxied }).base.href;
      expect(route(true)).toBe(host);
      expect(route(false)).toBe("https://www.googleapis.com/");
    }
    // With CONNECTOR_<NAME>_API_URL set, a declared host of its own keeps only its path under it;
    // a base the provider's answer names stays the provider's.
    expect(base("quickbooks", {}, true)).toBe("http://fake/p");
    expect(base("basecamp", { accountId: "999" }, true)).toBe("http://fake/p/999");
    expect(base("jira", { sites: [{ cloudId: "c1" }] }, true)).toBe("http://fake/p/ex/jira/c1");
    expect(base("docusign", { baseUri: "https://na3.docusign.net" }, true)).toBe("https://na3.docusign.net/restapi");
  });

  test("declarations are checked: https bases, known auth styles", () => {
    expect(apiSchema.safeParse({ connectionBaseUrl: "http://api.example.com" }).success).toBe(false);
    expect(apiSchema.safeParse({ connectionBaseUrl: "https://api.example.com/?x=1" }).success).toBe(false);
    expect(apiSchema.safeParse({ auth: { style: "cookie" } }).success).toBe(false);
    expect(apiSchema.safeParse({ auth: { style: "header", header: "X-Token" } }).success).toBe(false);
    expect(api({}).auth).toEqual({ style: "bearer" });
  });

  test("a declared rate-limit header says how long to wait", () => {
    const github = api({ rateLimitHeaders: [{ header: "x-ratelimit-reset", value: "epoch_seconds" }] });
    expect(declaredRateLimitWaitMs(github, { "x-ratelimit-reset": "1767225610" }, Date.parse("2026-01-01T00:00:00Z"))).toBe(10_000);
    expect(declaredRateLimitWaitMs(github, {}, 0)).toBeUndefined();
    expect(declaredRateLimitWaitMs(api({ rateLimitHeaders: [{ header: "x-wait", value: "seconds" }] }), { "x-wait": "2" }, 0)).toBe(2000);
  });
});

describe("declared styles through the proxy", () => {
  let app: TestApp;
  let provider: Server;
  let ada: Operator;
  let seen: { url: string; headers: IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    provider = createServer((req, res) => {
      seen.push({ url: req.url ?? "", headers: req.headers });
      res.end("{}");
    });
    await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
    const local = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    // QuickBooks and Harvest: identity and API on two hosts in production, one fake here under the API URL override.
    app = await startTestApp({
      CONNECTOR_JIRA_API_URL: local,
      CONNECTOR_CLICKUP_API_URL: `${local}/api/v2`,
      CONNECTOR_QUICKBOOKS_API_URL: `${local}/intuit`,
      CONNECTOR_HARVEST_API_URL: `${local}/harvest`,
    });
    ada = await createOperator(app, "Ada");
    await insertConnection(app, { deploymentId: ada.deploymentId, connector: "jira", account: "alice", accessToken: "jira-token", metadata: { sites: [{ cloudId: "cloud-1" }] } });
    await insertConnection(app, { deploymentId: ada.deploymentId, connector: "clickup", account: "alice", accessToken: "pk-like-token" });
    await insertConnection(app, { deploymentId: ada.deploymentId, connector: "salesforce", account: "alice", accessToken: "sf-token", metadata: { restUrl: `${local}/services/data/v{version}/` } });
    await insertConnection(app, { deploymentId: ada.deploymentId, connector: "jira", account: "nosite", accessToken: "jira-token-2" });
    await insertConnection(app, { deploymentId: ada.deploymentId, connector: "docusign", account: "alice", accessToken: "ds-token", metadata: { baseUri: local } });
    await insertConnection(app, { deploymentId: ada.deploymentId, connector: "quickbooks", account: "alice", accessToken: "qb-token" });
    await insertConnection(app, { deploymentId: ada.deploymentId, connector: "harvest", account: "alice", accessToken: "hv-token", metadata: { accountId: 123456 } });
    await insertConnection(app, { deploymentId: ada.deploymentId, connector: "harvest", account: "noaccount", accessToken: "hv-token-2" });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    provider?.closeAllConnections();
    await new Promise((resolve) => provider?.close(resolve));
  });

  const call = (connector: string, path: string, account = "alice") => raw(`${app.url}/api/v1/proxy/${connector}/${account}/${path}`, { headers: { "x-api-key": ada.apiKey } });

  test("Jira goes to the site's gateway path, ClickUp gets the bare token, Salesforce its instance", async () => {
    seen = [];
    expect((await call("jira", "rest/api/3/myself?expand=groups")).status).toBe(200);
    expect(seen[0].url).toBe("/ex/jira/cloud-1/rest/api/3/myself?expand=groups");
    expect(seen[0].headers.authorization).toBe("Bearer jira-token");
    expect((await call("clickup", "team")).status).toBe(200);
    expect(seen[1].url).toBe("/api/v2/team");
    expect(seen[1].headers.authorization).toBe("pk-like-token");
    expect((await call("salesforce", "services/data/v62.0/sobjects")).status).toBe(200);
    expect(seen[2].url).toBe("/services/data/v62.0/sobjects");
    expect(seen[2].headers.authorization).toBe("Bearer sf-token");
  });

  test("providers whose identity host is not their API's: Docusign's account base_uri with /restapi; QuickBooks and Harvest under their API's host", async () => {
    seen = [];
    expect((await call("docusign", "v2.1/accounts/acc-1/envelopes?from_date=2026-01-01")).status).toBe(200);
    expect((await call("quickbooks", "v3/company/9130/companyinfo/9130")).status).toBe(200);
    expect((await call("harvest", "v2/users/me")).status).toBe(200);
    expect(seen.map((r) => [r.url, r.headers.authorization])).toEqual([
      ["/restapi/v2.1/accounts/acc-1/envelopes?from_date=2026-01-01", "Bearer ds-token"],
      ["/intuit/v3/company/9130/companyinfo/9130", "Bearer qb-token"],
      ["/harvest/v2/users/me", "Bearer hv-token"],
    ]);
  });

  test("Harvest's account header is the connection's first account unless the caller names one; without one it is not sent", async () => {
    seen = [];
    await call("harvest", "v2/users/me");
    await raw(`${app.url}/api/v1/proxy/harvest/alice/v2/users/me`, { headers: { "x-api-key": ada.apiKey, "harvest-account-id": "789" } });
    await call("harvest", "v2/users/me", "noaccount");
    expect(seen.map((r) => r.headers["harvest-account-id"])).toEqual(["123456", "789", undefined]);
  });

  test("a connection without its tenant's value is 409, and nothing is sent", async () => {
    seen = [];
    const answer = await call("jira", "rest/api/3/myself", "nosite");
    expect(answer.status).toBe(409);
    expect(answer.headers["x-switchyard-error"]).toBe("true");
    expect(JSON.parse(String(answer.body)).detail).toContain("cloudId");
    expect(seen).toEqual([]);
  });
});
