/**
 * Providers' official npm SDKs pointed at the proxy, as an operator would: the SDK's base URL is
 * `{PUBLIC_URL}/api/v1/proxy/{connector}/{account}` and the deployment's key is its default header
 * (or the token it takes, where it takes nothing else). Nothing else is configured, no SDK is
 * patched. Each provider's API is one recording fake (each connector's CONNECTOR_<NAME>_API_URL
 * under its own prefix) that answers what the SDK's call documents and keeps every request, so the
 * test sees what reached the "provider": the path (never the version twice), the account's token
 * (never the operator's key), and the answer as the SDK reads it.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AccountApi as DropboxSignAccountApi } from "@dropbox/sign";
import { NetlifyAPI } from "@netlify/api";
import smartsheet from "smartsheet";
import { Client as HubSpot } from "@hubspot/api-client";
import { Client as GraphClient } from "@microsoft/microsoft-graph-client";
import { Client as NotionClient } from "@notionhq/client";
import { Octokit } from "@octokit/rest";
import sendgrid from "@sendgrid/client";
import { WebClient } from "@slack/web-api";
import { sheets } from "@googleapis/sheets";
import mailchimp from "@mailchimp/mailchimp_marketing";
import asana from "asana";
import { WebflowClient, WebflowEnvironment } from "webflow-api";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { connectionApi } from "../../src/connectors/connectionApi.ts";
import { findConnector } from "../../src/connectors/registry.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { insertConnection, raw } from "./helpers.ts";

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
type Reply = { status?: number; headers?: Record<string, string>; body?: unknown };
const seen: Seen[] = [];
let fake: Server;
let fakeUrl: string;
let app: TestApp;
let ada: Operator;

/** `METHOD /prefix/path` (query left out) → the answer. */
const routes: Record<string, (req: Seen) => Reply> = {
  // https://developers.notion.com/reference/get-self
  "GET /notion/v1/users/me": () => ({ body: { object: "user", id: "bot-1", type: "bot", name: "Quantify", bot: {} } }),
  // https://learn.microsoft.com/en-us/graph/api/user-list-messages
  "GET /graph/v1.0/me/messages": () => ({ body: { value: [{ id: "AAMk1", subject: "Hello" }] } }),
  // https://docs.github.com/en/rest/issues/issues#list-repository-issues; pagination by Link
  // (https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api)
  "GET /github/repos/octo/hello/issues": (req) => {
    const page = new URL(req.url, "http://x").searchParams.get("page") ?? "1";
    const link = page === "1" ? `<${fakeUrl}/github/repos/octo/hello/issues?per_page=1&page=2>; rel="next", <${fakeUrl}/github/repos/octo/hello/issues?per_page=1&page=2>; rel="last"` : `<${fakeUrl}/github/repos/octo/hello/issues?per_page=1&page=1>; rel="first"`;
    return { headers: { link }, body: [{ id: Number(page), number: Number(page), title: `Issue ${page}` }] };
  },
  // A renamed repository's tarball: 302 to the new name under the API base, then the bytes
  // (https://docs.github.com/en/rest/repos/contents#download-a-repository-archive-tar).
  "GET /github/repos/octo/old-name/tarball/main": () => ({ status: 302, headers: { location: `${fakeUrl}/github/repos/octo/new-name/tarball/main` } }),
  "GET /github/repos/octo/new-name/tarball/main": () => ({ headers: { "content-type": "application/x-gzip" }, body: Buffer.from([0x1f, 0x8b, 0x08, 0x00]) }),
  // https://api.slack.com/methods/auth.test
  "POST /slack/api/auth.test": () => ({ body: { ok: true, url: "https://acme.slack.com/", team: "Acme", user: "ada", team_id: "T1", user_id: "U1" } }),
  // https://platform.openai.com/docs/api-reference/models/list
  "GET /openai/v1/models": () => ({ body: { object: "list", data: [{ id: "gpt-4o", object: "model", created: 1715367049, owned_by: "system" }] } }),
  // https://developers.hubspot.com/docs/api/crm/contacts
  "GET /hubspot/crm/v3/objects/contacts": () => ({ body: { results: [{ id: "51", properties: { email: "ada@example.com" }, createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z", archived: false }] } }),
  // https://www.twilio.com/docs/sendgrid/api-reference/users-api/get-a-users-profile
  "GET /sendgrid/v3/user/profile": () => ({ body: { first_name: "Ada", last_name: "Lovelace", company: "Acme" } }),
  // https://mailchimp.com/developer/marketing/api/ping/ (under the account's api_endpoint, not a prefix: only its origin is taken)
  "GET /3.0/ping": () => ({ body: { health_status: "Everything's Chimpy!" } }),
  // https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets.values/get
  "GET /gsheets/v4/spreadsheets/sheet-1/values/A1%3AB2": () => ({ body: { range: "Sheet1!A1:B2", majorDimension: "ROWS", values: [["a", "b"], ["c", "d"]] } }),
  // https://developers.webflow.com/data/reference/sites/list
  "GET /webflow/v2/sites": () => ({ body: { sites: [{ id: "42e63e98c9a982ac9b8b741", workspaceId: "42e63e98c9a982ac9b8b742", displayName: "The Hitchhiker's Guide", shortName: "hitchhikers-guide", createdOn: "2026-01-01T09:00:00.000Z", lastUpdated: "2026-01-01T10:00:00.000Z" }] } }),
  // https://developers.asana.com/reference/getuser
  "GET /asana/api/1.0/users/me": () => ({ body: { data: { gid: "12345", resource_type: "user", name: "Ada" } } }),
  // https://developers.hellosign.com/api/reference/operation/accountGet/
  "GET /dbsign/v3/account": () => ({ body: { account: { account_id: "5008b25c7f67153e57d5a357b1687968068fb465", email_address: "ada@example.com", is_locked: false, is_paid_hs: true, is_paid_hf: false, locale: "en-US" } } }),
  // https://developers.smartsheet.com/api/smartsheet/openapi/users/get-current-user
  "GET /smartsheet/2.0/users/me": () => ({ body: { id: 48569348493401200, email: "ada@example.com", firstName: "Ada", lastName: "Lovelace", locale: "en_US", timeZone: "Europe/London" } }),
  // https://open-api.netlify.com/#tag/user/operation/getCurrentUser
  "GET /netlify/api/v1/user": () => ({ body: { id: "5f5c6b1b2c3d4e5f6a7b8c9d", uid: "5f5c6b1b2c3d4e5f6a7b8c9d", full_name: "Ada Lovelace", email: "ada@example.com" } }),
};

const TOKENS: Record<string, string> = {
  notion: "secret_notion",
  microsoft: "eyJ0eXAi.graph.token",
  github: "gho_github",
  slack: "xoxp-slack",
  openai: "sk-openai",
  hubspot: "pat-na1-hubspot",
  sendgrid: "SG.sendgrid",
  asana: "2/asana",
  mailchimp: "mailchimp-token-us19",
  google_sheets: "ya29.sheets",
  webflow: "webflow-token",
  dropbox_sign: "dropbox-sign-token",
  smartsheet: "smartsheet-token",
  netlify: "netlify-token",
};

beforeAll(async () => {
  fake = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const entry = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(entry);
      const route = routes[`${entry.method} ${entry.url.split("?")[0]}`];
      const reply = route ? route(entry) : { status: 404, body: { message: "Not Found" } };
      const body = Buffer.isBuffer(reply.body) ? reply.body : reply.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(reply.body));
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers }).end(body);
    });
  });
  await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
  fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  app = await startTestApp({
    CONNECTOR_NOTION_API_URL: `${fakeUrl}/notion`,
    CONNECTOR_MICROSOFT_API_URL: `${fakeUrl}/graph`,
    CONNECTOR_GITHUB_API_URL: `${fakeUrl}/github`,
    CONNECTOR_SLACK_API_URL: `${fakeUrl}/slack/api`,
    CONNECTOR_OPENAI_API_URL: `${fakeUrl}/openai/v1`,
    CONNECTOR_HUBSPOT_API_URL: `${fakeUrl}/hubspot`,
    CONNECTOR_SENDGRID_API_URL: `${fakeUrl}/sendgrid`,
    CONNECTOR_ASANA_API_URL: `${fakeUrl}/asana/api/1.0`,
    // Moves both of Google Sheets' hosts (the identity's and the Sheets API's) to the fake.
    CONNECTOR_GOOGLE_SHEETS_API_URL: `${fakeUrl}/gsheets`,
    CONNECTOR_WEBFLOW_API_URL: `${fakeUrl}/webflow/v2`,
    CONNECTOR_DROPBOX_SIGN_API_URL: `${fakeUrl}/dbsign/v3`,
    CONNECTOR_SMARTSHEET_API_URL: `${fakeUrl}/smartsheet/2.0`,
    CONNECTOR_NETLIFY_API_URL: `${fakeUrl}/netlify/api/v1`,
  });
  ada = await createOperator(app, "Ada");
  for (const [connector, accessToken] of Object.entries(TOKENS)) {
    // Mailchimp's API is on the account's data centre, its `api_endpoint` from the metadata call.
    const metadata = connector === "mailchimp" ? { dc: "us19", apiEndpoint: fakeUrl } : {};
    await insertConnection(app, { deploymentId: ada.deploymentId, connector, account: "ada", accessToken, metadata });
  }
}, 60_000);
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => fake?.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
});

const base = (connector: string) => `${app.url}/api/v1/proxy/${connector}/ada`;

/** Every request that reached the fake carried the account's token in the declared style, and never the operator's key. */
function reachedWithToken(connector: string) {
  expect(seen.length).toBeGreaterThan(0);
  for (const request of seen) {
    expect(request.headers.authorization).toBe(`Bearer ${TOKENS[connector]}`);
    expect(JSON.stringify(request.headers)).not.toContain(ada.apiKey);
    expect(request.headers["x-api-key"]).toBeUndefined();
  }
}

describe("official SDKs with the proxy as their base URL", () => {
  test("each connector's proxy base is the base its official SDK is configured with by default", () => {
    // The SDKs' own defaults, where they say them: webflow-api's environment, openai's client, googleapis' rootUrl, mailchimp's basePath.
    const sdkDefaults: Record<string, { base: string; metadata?: object }> = {
      notion: { base: "https://api.notion.com" }, // @notionhq/client ClientOptions.baseUrl
      microsoft: { base: "https://graph.microsoft.com" }, // GRAPH_BASE_URL, the version added per request
      github: { base: "https://api.github.com" }, // Octokit baseUrl
      slack: { base: "https://slack.com/api" }, // @slack/web-api slackApiUrl
      openai: { base: new OpenAI({ apiKey: "x" }).baseURL },
      hubspot: { base: "https://api.hubapi.com" }, // @hubspot/api-client basePath
      sendgrid: { base: "https://api.sendgrid.com" }, // @sendgrid/client baseUrl
      asana: { base: "https://app.asana.com/api/1.0" }, // asana ApiClient.basePath
      webflow: { base: WebflowEnvironment.DataApi.base },
      google_sheets: { base: "https://sheets.googleapis.com" }, // @googleapis/sheets rootUrl
      mailchimp: { base: "https://us19.api.mailchimp.com/3.0", metadata: { apiEndpoint: "https://us19.api.mailchimp.com" } }, // basePath, `server` = us19
      dropbox_sign: { base: new DropboxSignAccountApi().basePath },
      smartsheet: { base: smartsheet.smartSheetURIs.defaultBaseURI },
      netlify: { base: new NetlifyAPI().basePath }, // `${scheme}://${host}${pathPrefix}` from Netlify's OpenAPI document
    };
    for (const [connector, { base, metadata }] of Object.entries(sdkDefaults)) {
      const def = findConnector(connector)!;
      const proxied = connectionApi(def, {}, { params: {}, metadata: metadata ?? {} }, { allowHttp: false, proxied: true }).base;
      expect(proxied.href.replace(/\/$/, ""), connector).toBe(base.replace(/\/$/, ""));
    }
  });

  test("@notionhq/client: GET /v1/users/me, the version once", async () => {
    const notion = new NotionClient({ baseUrl: base("notion"), auth: ada.apiKey });
    const me = await notion.users.me({});
    expect(me.id).toBe("bot-1");
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /notion/v1/users/me"]);
    expect(seen[0].headers["notion-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    reachedWithToken("notion");
  });

  test("@microsoft/microsoft-graph-client: GET /v1.0/me/messages, the version once", async () => {
    const graph = GraphClient.init({ baseUrl: base("microsoft"), fetchOptions: { headers: { "x-api-key": ada.apiKey } }, authProvider: (done) => done(null, "unused") });
    const messages = await graph.api("/me/messages").get();
    expect(messages.value[0].subject).toBe("Hello");
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /graph/v1.0/me/messages"]);
    reachedWithToken("microsoft");
  });

  test("@octokit/rest: paginate follows Link through the proxy; a redirect stays in it", async () => {
    const octokit = new Octokit({ baseUrl: base("github"), auth: ada.apiKey });
    const issues = await octokit.paginate(octokit.rest.issues.listForRepo, { owner: "octo", repo: "hello", per_page: 1 });
    expect(issues.map((i) => i.title)).toEqual(["Issue 1", "Issue 2"]);
    expect(seen.map((r) => r.url)).toEqual(["/github/repos/octo/hello/issues?per_page=1", "/github/repos/octo/hello/issues?per_page=1&page=2"]);
    reachedWithToken("github");

    seen.length = 0;
    const tarball = await octokit.rest.repos.downloadTarballArchive({ owner: "octo", repo: "old-name", ref: "main" });
    expect(Buffer.from(tarball.data as ArrayBuffer).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(seen.map((r) => r.url)).toEqual(["/github/repos/octo/old-name/tarball/main", "/github/repos/octo/new-name/tarball/main"]);
    reachedWithToken("github");
  });

  test("@slack/web-api: auth.test", async () => {
    const slack = new WebClient(undefined, { slackApiUrl: `${base("slack")}/`, headers: { "x-api-key": ada.apiKey } });
    const answer = await slack.auth.test();
    expect(answer.team_id).toBe("T1");
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(["POST /slack/api/auth.test"]);
    reachedWithToken("slack");
  });

  test("openai: models.list", async () => {
    const openai = new OpenAI({ baseURL: base("openai"), apiKey: ada.apiKey, maxRetries: 0 });
    const models = await openai.models.list();
    expect(models.data.map((m) => m.id)).toEqual(["gpt-4o"]);
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /openai/v1/models"]);
    reachedWithToken("openai");
  });

  test("@hubspot/api-client: contacts getPage", async () => {
    const hubspot = new HubSpot({ basePath: base("hubspot"), accessToken: ada.apiKey, numberOfApiCallRetries: 0 });
    const page = await hubspot.crm.contacts.basicApi.getPage(1);
    expect(page.results[0].id).toBe("51");
    expect(seen.map((r) => `${r.method} ${r.url.split("?")[0]}`)).toEqual(["GET /hubspot/crm/v3/objects/contacts"]);
    reachedWithToken("hubspot");
  });

  test("@sendgrid/client: the user's profile", async () => {
    const client = sendgrid;
    client.setDefaultRequest("baseUrl", base("sendgrid"));
    client.setDefaultHeader("x-api-key", ada.apiKey);
    const [response] = await client.request({ method: "GET", url: "/v3/user/profile" });
    expect((response.body as { first_name: string }).first_name).toBe("Ada");
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /sendgrid/v3/user/profile"]);
    reachedWithToken("sendgrid");
  });

  test("asana: users getUser('me')", async () => {
    const client = asana.ApiClient.instance;
    client.basePath = base("asana");
    client.defaultHeaders = { "x-api-key": ada.apiKey };
    const me = await new asana.UsersApi().getUser("me", {});
    expect(me.data.gid).toBe("12345");
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /asana/api/1.0/users/me"]);
    reachedWithToken("asana");
  });

  test("@googleapis/sheets: values.get, the Sheets API's paths under the proxy", async () => {
    // googleapis takes a global rootUrl's origin only (googleapis-common rewrites the path away); a
    // method's own rootUrl is taken whole.
    const client = sheets({ version: "v4", headers: { "x-api-key": ada.apiKey } });
    const answer = await client.spreadsheets.values.get({ spreadsheetId: "sheet-1", range: "A1:B2" }, { rootUrl: `${base("google_sheets")}/` });
    expect(answer.data.values).toEqual([["a", "b"], ["c", "d"]]);
    expect(seen.map((r) => `${r.method} ${decodeURIComponent(r.url.split("?")[0])}`)).toEqual(["GET /gsheets/v4/spreadsheets/sheet-1/values/A1:B2"]);
    reachedWithToken("google_sheets");
  });

  test("webflow-api: sites.list, the version once", async () => {
    const webflow = new WebflowClient({ accessToken: ada.apiKey, baseUrl: base("webflow"), maxRetries: 0 });
    const answer = await webflow.sites.list();
    expect(answer.sites?.map((site) => site.shortName)).toEqual(["hitchhikers-guide"]);
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /webflow/v2/sites"]);
    reachedWithToken("webflow");
  });

  test("@mailchimp/mailchimp_marketing: ping, the version once", async () => {
    // Its basePath is https://server.api.mailchimp.com/3.0 (`server` replaced by setConfig's data centre).
    const client = mailchimp as unknown as { basePath: string; defaultHeaders: Record<string, string> };
    client.basePath = base("mailchimp");
    client.defaultHeaders = { "x-api-key": ada.apiKey };
    const answer = await mailchimp.ping.get();
    expect(answer).toEqual({ health_status: "Everything's Chimpy!" });
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /3.0/ping"]);
    reachedWithToken("mailchimp");
  });

  test("@dropbox/sign: accountGet, the version once", async () => {
    const accounts = new DropboxSignAccountApi(base("dropbox_sign"));
    accounts.accessToken = ada.apiKey;
    const answer = await accounts.accountGet();
    expect(answer.body.account?.emailAddress).toBe("ada@example.com");
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /dbsign/v3/account"]);
    reachedWithToken("dropbox_sign");
  });

  test("smartsheet: users.getCurrentUser, the version once", async () => {
    // The SDK appends its paths to baseUrl as they are: its default ends in `/2.0/`.
    const client = smartsheet.createClient({ accessToken: ada.apiKey, baseUrl: `${base("smartsheet")}/` });
    const me = await client.users.getCurrentUser({});
    expect(me.email).toBe("ada@example.com");
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /smartsheet/2.0/users/me"]);
    reachedWithToken("smartsheet");
  });

  test("@netlify/api: getCurrentUser, the version once", async () => {
    // As docs/reference/using-a-connection.md gives it: the proxy URL in three parts.
    const { protocol, host, pathname } = new URL(base("netlify"));
    const netlify = new NetlifyAPI(ada.apiKey, { scheme: protocol.slice(0, -1), host, pathPrefix: pathname });
    const me = await netlify.getCurrentUser();
    expect(me.email).toBe("ada@example.com");
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /netlify/api/v1/user"]);
    reachedWithToken("netlify");
  });
});

describe("proxied answers", () => {
  const get = (path: string, headers: Record<string, string> = {}) => raw(`${base("github")}/${path}`, { headers: { "x-api-key": ada.apiKey, ...headers } });

  test("Link URLs under the connection's API base point into the proxy; others are left as they are", async () => {
    routes["GET /github/links"] = () => ({ headers: { link: `<${fakeUrl}/github/links?page=2>; rel="next", <https://elsewhere.example/x>; rel="help", <${fakeUrl}/githubber/x>; rel="other"` } });
    const response = await get("links");
    expect(response.headers.link).toBe(`<${base("github")}/links?page=2>; rel="next", <https://elsewhere.example/x>; rel="help", <${fakeUrl}/githubber/x>; rel="other"`);
  });

  test("a Location under the API base points into the proxy; one elsewhere is left", async () => {
    routes["GET /github/moved"] = () => ({ status: 301, headers: { location: `${fakeUrl}/github/repos/a/b` } });
    routes["GET /github/away"] = () => ({ status: 302, headers: { location: "https://codeload.github.com/a/b/tar.gz/main" } });
    expect((await get("moved")).headers.location).toBe(`${base("github")}/repos/a/b`);
    expect((await get("away")).headers.location).toBe("https://codeload.github.com/a/b/tar.gz/main");
  });

  test.each([
    [undefined, "private"],
    ["public, max-age=60, s-maxage=60", "private, max-age=60"],
    ["max-age=0, must-revalidate", "private, max-age=0, must-revalidate"],
    ["private, max-age=60", "private, max-age=60"],
    ["no-store", "no-store"],
  ])("Cache-Control %s from the provider is answered %s, and Vary names X-Api-Key", async (given, answered) => {
    routes["GET /github/cached"] = () => ({ headers: { ...(given ? { "cache-control": given } : {}), vary: "Accept, Accept-Encoding" } });
    const response = await get("cached");
    expect(response.headers["cache-control"]).toBe(answered);
    expect(String(response.headers.vary).split(/\s*,\s*/)).toEqual(expect.arrayContaining(["Accept", "Accept-Encoding", "X-Api-Key"]));
  });
});
