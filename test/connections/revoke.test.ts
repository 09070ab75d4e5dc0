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
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
type Expectation = (request: Seen) => { status: number; body: string };

const CLIENT = { clientId: "client-id", clientSecret: "client-secret" };
const basic = `Basic ${Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString("base64")}`;
const form = (body: string) => Object.fromEntries(new URLSearchParams(body));
const refused = { status: 400, body: '{"error":"invalid_request"}' };

// https://developers.google.com/identity/protocols/oauth2/web-server#tokenrevoke: the token (access or
// refresh) as `token`, form-encoded, no client authentication; 200, else 400 with an error code. One
// authorization server for every Google connector.
const google = {
  path: "/revoke",
  expect: (r: Seen) =>
    r.method === "POST" &&
    r.headers["content-type"]?.startsWith("application/x-www-form-urlencoded") &&
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
      const request = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
      seen.push(request);
      const provider = Object.values(providers).find((p) => p.path === request.path);
      const answer = provider ? provider.expect(request) : { status: 404, body: "" };
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function revokeFor(connector: string, clientCredentials = CLIENT) {
  const env = { [`CONNECTOR_${connector.toUpperCase()}_REVOCATION_URL`]: `${base}${providers[connector].path}` };
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
