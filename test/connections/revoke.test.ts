import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRevocation } from "../../src/connections/revoke.ts";
import { findConnector } from "../../src/connectors/registry.ts";
import { createLogger } from "../../src/log.ts";

/**
 * A deleted connection's grant is revoked at the provider as each connector declares. One fake
 * revocation endpoint plays each provider, answering only a request made the way that provider's
 * documentation says (the answer it documents otherwise 400/401), so a declaration that drifts
 * from the documented protocol shows up as "failed".
 */
interface Seen {
  method: string;
  /** Without the query string, which is `query`. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}
type Expectation = (request: Seen) => { status: number; body: string };

const CLIENT = { clientId: "client-id", clientSecret: "client-secret" };
const basic = `Basic ${Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString("base64")}`;
const form = (body: string) => Object.fromEntries(new URLSearchParams(body));
/** A JSON request's members; none when the request is not JSON. */
const json = (r: Seen): Record<string, string> =>
  r.headers["content-type"]?.startsWith("application/json") ? JSON.parse(r.body || "{}") : {};
type Answer = { status: number; body: string };
const refused: Answer = { status: 400, body: '{"error":"invalid_request"}' };
const isForm = (r: Seen) => r.headers["content-type"]?.startsWith("application/x-www-form-urlencoded") === true;

/** RFC 7009's request with HTTP Basic client authentication: the refresh token as the form field `token`. */
const basicForm =
  (ok: Answer, otherwise: Answer = refused): Expectation =>
  (r) =>
    r.method === "POST" && r.headers.authorization === basic && isForm(r) && form(r.body).token === "refresh-token" ? ok : otherwise;

/** The same with the client's id and secret as form fields instead. */
const clientInForm =
  (ok: Answer, otherwise: Answer = refused): Expectation =>
  (r) => {
    const fields = form(r.body);
    return r.method === "POST" && fields.client_id === CLIENT.clientId && fields.client_secret === CLIENT.clientSecret && fields.token === "refresh-token" ? ok : otherwise;
  };

/** A JSON request carrying the client's id and secret and the access token, in the members the provider names. */
const clientInJson =
  (names: { id: string; secret: string; token: string }, ok: Answer, otherwise: Answer): Expectation =>
  (r) => {
    const fields = json(r);
    return r.method === "POST" && fields[names.id] === CLIENT.clientId && fields[names.secret] === CLIENT.clientSecret && fields[names.token] === "access-token" ? ok : otherwise;
  };

// https://developers.google.com/identity/protocols/oauth2/web-server#tokenrevoke: the token (access or
// refresh) as `token`, form-encoded, no client authentication; 200, else 400 with an error code. One
// authorization server for every Google connector.
const google = {
  path: "/revoke",
  expect: (r: Seen) =>
    r.method === "POST" &&
    isForm(r) &&
    form(r.body).token === "refresh-token" &&
    r.headers.authorization === undefined &&
    form(r.body).client_secret === undefined
      ? { status: 200, body: "{}" }
      : { status: 400, body: '{"error":"invalid_token"}' },
};

// What each provider's documentation says a revocation request is, and what it answers.
const providers: Record<string, { path: string; expect: Expectation }> = {
  gmail: google,
  google_calendar: google,
  google_drive: google,
  google_docs: google,
  google_sheets: google,
  youtube: google,
  // https://developers.asana.com/docs/oauth ("Token deauthorization endpoint"): only a refresh token.
  asana: {
    path: "/-/oauth_revoke",
    expect: clientInForm({ status: 200, body: "" }),
  },
  // https://pipedrive.readme.io/docs/app-uninstallation ("Token revocation")
  pipedrive: {
    path: "/oauth/revoke",
    expect: basicForm({ status: 200, body: "" }, { status: 401, body: '{"success":false,"error":"unauthorized"}' }),
  },
  // https://developer.calendly.com/api-docs/calendly-o-auth/o-auth/post-oauth-revoke
  calendly: {
    path: "/oauth/revoke",
    expect: clientInForm({ status: 200, body: "" }, { status: 400, body: '{"error":"invalid_request","error_description":"token is missing"}' }),
  },
  // https://developer.intuit.com/app/developer/qbo/docs/develop/authentication-and-authorization/oauth-2.0 ("Revoke access tokens")
  quickbooks: {
    path: "/v2/oauth2/tokens/revoke",
    expect: (r) =>
      r.method === "POST" && r.headers.authorization === basic && json(r).token === "refresh-token"
        ? { status: 200, body: "" }
        : refused,
  },
  // https://developer.xero.com/documentation/guides/oauth2/auth-flow ("Revoking tokens")
  xero: {
    path: "/connect/revocation",
    expect: basicForm({ status: 200, body: "" }, { status: 400, body: '{"error":"invalid_client"}' }),
  },
  // https://github.com/reddit-archive/reddit/wiki/OAuth2 ("Manually revoking a token"): 204 (even for
  // an unknown token), 401 without the client's Basic credentials.
  reddit: {
    path: "/api/v1/revoke_token",
    expect: basicForm({ status: 204, body: "" }, { status: 401, body: '{"message":"Unauthorized","error":401}' }),
  },
  // https://docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token ("POST oauth2/revoke");
  // the page states no answer: a 2xx is taken as done.
  x: {
    path: "/2/oauth2/revoke",
    expect: basicForm({ status: 200, body: "{}" }),
  },
  // https://discord.com/developers/docs/topics/oauth2 ("Token Revocation Example"): form data only.
  discord: {
    path: "/oauth2/token/revoke",
    expect: basicForm({ status: 200, body: "" }),
  },
  // https://linear.app/developers/oauth-2-0-authentication ("Revoke an access token")
  linear: {
    path: "/oauth/revoke",
    expect: (r) =>
      r.method === "POST" && isForm(r) && form(r.body).refresh_token === "refresh-token"
        ? { status: 200, body: "" }
        : { status: 401, body: "" },
  },
  // https://docs.gitlab.com/api/oauth2/#revoke-a-token
  gitlab: {
    path: "/oauth/revoke",
    expect: clientInForm({ status: 200, body: "{}" }),
  },
  // https://www.canva.dev/docs/connect/api-reference/authentication/revoke-token/
  canva: {
    path: "/rest/v1/oauth/revoke",
    expect: basicForm({ status: 200, body: "{}" }, { status: 401, body: '{"code":"invalid_access_token","message":"Client secret is invalid"}' }),
  },
  // https://developers.ringcentral.com/guide/authentication/tokens
  ringcentral: {
    path: "/restapi/oauth/revoke",
    expect: basicForm({ status: 200, body: "" }, { status: 401, body: '{"error":"invalid_client"}' }),
  },
  // https://docs.gusto.com/app-integrations/reference/revoke-access-token
  gusto: {
    path: "/oauth/revoke",
    expect: (r) => {
      const fields = json(r);
      return r.method === "POST" && fields.client_id === CLIENT.clientId && fields.client_secret === CLIENT.clientSecret && fields.token === "access-token"
        ? { status: 200, body: "" }
        : refused;
    },
  },
  // https://developers.intercom.com/docs/build-an-integration/learn-more/authentication/installing-uninstalling-apps#revoking-access
  intercom: {
    path: "/auth/uninstall",
    expect: (r) => (r.method === "POST" && r.headers.authorization === "Bearer access-token" ? { status: 200, body: "" } : { status: 401, body: '{"type":"error.list"}' }),
  },
  // https://developers.smartsheet.com/api/smartsheet/openapi/tokens/tokens-delete: every token of the
  // client for the user with deleteAllForApiClient=true.
  smartsheet: {
    path: "/2.0/token",
    expect: (r) =>
      r.method === "DELETE" && r.headers.authorization === "Bearer access-token" && r.query.get("deleteAllForApiClient") === "true"
        ? { status: 200, body: '{"message":"SUCCESS","resultCode":0}' }
        : { status: 401, body: '{"errorCode":1002}' },
  },
  // https://developers.webflow.com/data/reference/oauth-app ("Revoke an access token")
  webflow: {
    path: "/oauth/revoke_authorization",
    expect: clientInJson({ id: "client_id", secret: "client_secret", token: "access_token" }, { status: 200, body: '{"did_revoke":true}' }, refused),
  },
  // https://developers.strava.com/docs/authentication/ ("Deauthorization"): the access token in the query.
  strava: {
    path: "/oauth/deauthorize",
    expect: (r) => (r.method === "POST" && r.query.get("access_token") === "access-token" && r.body === "" ? { status: 200, body: '{"access_token":"access-token"}' } : refused),
  },
  // https://www.zoho.com/crm/developer/docs/api/v8/revoke-tokens.html: the refresh token in the query.
  zoho_crm: {
    path: "/oauth/v2/token/revoke",
    expect: (r) => (r.method === "POST" && r.query.get("token") === "refresh-token" && r.body === "" ? { status: 200, body: '{"status":"success"}' } : { status: 400, body: '{"error":"invalid_token"}' }),
  },
  // Miro's REST API specification (miroapp/api-clients, revoke-token-v2): camel-case JSON fields; 204.
  miro: {
    path: "/v2/oauth/revoke",
    expect: clientInJson(
      { id: "clientId", secret: "clientSecret", token: "accessToken" },
      { status: 204, body: "" },
      { status: 404, body: '{"status":404,"code":"notFound","message":"Token not found","type":"error"}' },
    ),
  },
  // https://www.dropbox.com/developers/documentation/http/documentation#auth-token-revoke
  dropbox: {
    path: "/2/auth/token/revoke",
    expect: (r) =>
      r.method === "POST" && r.headers.authorization === "Bearer access-token" && r.body === "" && r.headers["content-type"] === undefined
        ? { status: 200, body: "null" }
        : refused,
  },
  // https://developers.zoom.us/docs/integrations/oauth/ ("Revoking an access token")
  zoom: {
    path: "/oauth/revoke",
    expect: (r) =>
      r.method === "POST" && r.headers.authorization === basic && r.headers["content-type"]?.startsWith("application/x-www-form-urlencoded") && form(r.body).token === "access-token"
        ? { status: 200, body: '{"status":"success"}' }
        : refused,
  },
  // https://developer.box.com/reference/post-oauth2-revoke/
  box: {
    path: "/oauth2/revoke",
    expect: (r) => {
      const fields = form(r.body);
      return r.method === "POST" && fields.client_id === CLIENT.clientId && fields.client_secret === CLIENT.clientSecret && fields.token === "access-token"
        ? { status: 200, body: "" }
        : refused;
    },
  },
  // https://developer.salesforce.com/docs/platform/mobile-sdk/guide/oauth-revoking-tokens.html
  salesforce: {
    path: "/services/oauth2/revoke",
    expect: (r) =>
      r.method === "POST" && r.headers["content-type"]?.startsWith("application/x-www-form-urlencoded") && form(r.body).token === "refresh-token" && r.headers.authorization === undefined
        ? { status: 200, body: "" }
        : { status: 400, body: '{"error":"invalid_token"}' },
  },
};

let server: Server;
let base: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      // Each provider is served under its connector's name (several document the same path).
      const url = new URL(req.url ?? "/", "http://fake");
      const [, connector, ...rest] = url.pathname.split("/");
      const request = { method: req.method ?? "", path: `/${rest.join("/")}`, query: url.searchParams, headers: req.headers, body };
      seen.push(request);
      const provider = Object.hasOwn(providers, connector) ? providers[connector] : undefined;
      const answer = provider && provider.path === request.path ? provider.expect(request) : { status: 404, body: "" };
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function revokeFor(connector: string, clientCredentials = CLIENT) {
  const env = { [`CONNECTOR_${connector.toUpperCase()}_REVOCATION_URL`]: `${base}/${connector}${providers[connector].path}` };
  return createRevocation({
    connectorEnv: env,
    production: false,
    clientCredentials: { resolve: async () => ({ ...clientCredentials, source: "service" }) } as unknown as Parameters<typeof createRevocation>[0]["clientCredentials"],
    logger: createLogger("silent"),
  });
}
const tokens = { deploymentId: "d1", connectedAccountId: "c1", accessToken: "access-token", refreshToken: "refresh-token" };

describe("revocation at the provider, as each connector declares it", () => {
  test.each(Object.keys(providers))("%s: the documented request is made and accepted", async (connector) => {
    const def = findConnector(connector)!;
    expect(def.oauth.revocation, `${connector} declares a revocation`).toBeDefined();
    const before = seen.length;
    expect(await revokeFor(connector)(def, tokens)).toBe("revoked");
    expect(seen.slice(before).map((r) => r.path)).toEqual([providers[connector].path]);
  });

  test("a provider that refuses (a wrong client secret at Zoom) is reported as failed, never thrown", async () => {
    expect(await revokeFor("zoom", { ...CLIENT, clientSecret: "wrong" })(findConnector("zoom")!, tokens)).toBe("failed");
  });

  test("Microsoft declares none: the tokens are only forgotten", async () => {
    const def = findConnector("microsoft")!;
    expect(def.oauth.revocation).toBeUndefined();
    const revoke = createRevocation({ connectorEnv: {}, production: false, clientCredentials: {} as never, logger: createLogger("silent") });
    expect(await revoke(def, tokens)).toBe("not_declared");
  });
});
