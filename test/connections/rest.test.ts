import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeGitHub, githubIssuesPayload, githubWebhook, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { checkedFetch as fetch } from "../helpers/openapi.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The operator's server uses its end users' connections with the deployment's API key: lists them
 * (filters, search, the /api/data paging), reads one, deletes one — and never sees a token.
 * Every response is checked against the OpenAPI document (checkedFetch).
 */

let app: TestApp;
let github: FakeGitHub;
let ada: Operator;
let eve: Operator;

const api = (path: string, apiKey = ada.apiKey, init: RequestInit = {}) =>
  fetch(`${app.url}/api/v1/connections${path}`, { ...init, headers: { "x-api-key": apiKey, ...(init.headers as Record<string, string>) } });

beforeAll(async () => {
  github = await startFakeGitHub();
  app = await startTestApp(github.env());
  [ada, eve] = await Promise.all([createOperator(app, "Ada"), createOperator(app, "Eve")]);
  github.setIdentity({ id: 1001, login: "alice-gh" });
  await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
  github.setIdentity({ id: 1002, login: "Bobby" });
  await connectAccount(app, ada, { connector: "github", account: "bob", provider: github });
  github.setIdentity({ id: 1003, login: "evelyn" });
  await connectAccount(app, eve, { connector: "github", account: "alice", provider: github });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await github?.close();
});

describe("GET /api/v1/connections", () => {
  test("lists the deployment's connections newest first, as Connections without any token", async () => {
    const response = await api("");
    expect(response.status).toBe(200);
    expect(response.headers.get("x-total-count")).toBe("2");
    const text = await response.text();
    const list = JSON.parse(text) as { account: string; displayName: string; externalId: string; status: string; subscriptions: unknown[] }[];
    expect(list.map((c) => c.account)).toEqual(["bob", "alice"]);
    expect(list[1]).toMatchObject({ connector: "github", account: "alice", externalId: "1001", displayName: "alice-gh", status: "ACTIVE", subscriptions: [] });
    for (const grant of github.grants) expect(text).not.toContain(grant.accessToken);
    expect(text).not.toMatch(/token/i);
  });

  test("filters by connector and status, and searches account, externalId and displayName case-insensitively", async () => {
    const accounts = async (query: string) => ((await (await api(query)).json()) as { account: string }[]).map((c) => c.account);
    expect(await accounts("?connector=github&status=ACTIVE")).toEqual(["bob", "alice"]);
    expect(await accounts("?status=DISCONNECTED")).toEqual([]);
    expect(await accounts("?search=ALI")).toEqual(["alice"]);
    expect(await accounts("?search=bobb")).toEqual(["bob"]); // displayName "Bobby"
    expect(await accounts("?search=1002")).toEqual(["bob"]); // externalId
    expect(await accounts("?search=%25")).toEqual([]); // a literal %, not a wildcard
    expect(await accounts("?search=_")).toEqual([]);
    expect(await accounts("?search=evelyn")).toEqual([]); // another deployment's
  });

  test("bad values are 400 invalid_parameter naming the parameter; a bad key is 401 first", async () => {
    for (const [query, field] of [
      ["?connector=nope", "connector"],
      ["?status=active", "status"],
      ["?limit=0", "limit"],
      ["?limit=101", "limit"],
      ["?offset=-1", "offset"],
      ["?envelope=yes", "envelope"],
      ["?status=ACTIVE&status=DISCONNECTED", "status"],
      [`?search=${"x".repeat(256)}`, "search"],
    ] as const) {
      const response = await api(query);
      expect(response.status, query).toBe(400);
      const problem = (await response.json()) as { code: string; detail: string };
      expect(problem.code).toBe("invalid_parameter");
      expect(problem.detail).toContain(field);
    }
    expect((await api("?limit=0", "sy_live_wrongwrongwrongwrongwrongwrongwrong")).status).toBe(401);
    expect((await fetch(`${app.url}/api/v1/connections`)).status).toBe(401);
  });

  test("pages exactly as /api/data: X-Total-Count, Link keeping the filters, envelope", async () => {
    // 23 more connections, stored directly: the paging is under test here, not the connect flow.
    await app.database.prisma.connectedAccount.createMany({
      data: Array.from({ length: 23 }, (_, i) => ({
        deploymentId: ada.deploymentId,
        connector: "github",
        account: `user-${String(i).padStart(2, "0")}`,
        externalId: String(2000 + i),
        accessTokenEncrypted: "",
        createdAt: new Date(Date.UTC(2020, 0, 1, 0, 0, i)),
      })),
    });
    const page = await api("?search=user-&limit=10&offset=10");
    expect(page.headers.get("x-total-count")).toBe("23");
    expect(page.headers.get("x-offset")).toBe("10");
    expect(page.headers.get("x-limit")).toBe("10");
    const base = `${app.url}/api/v1/connections`;
    expect(page.headers.get("link")).toBe(
      [
        `<${base}?offset=0&limit=10&search=user->; rel="first"`,
        `<${base}?offset=0&limit=10&search=user->; rel="prev"`,
        `<${base}?offset=20&limit=10&search=user->; rel="next"`,
        `<${base}?offset=20&limit=10&search=user->; rel="last"`,
      ].join(", "),
    );
    expect(((await page.json()) as { account: string }[]).map((c) => c.account)).toEqual(
      Array.from({ length: 10 }, (_, i) => `user-${String(12 - i).padStart(2, "0")}`),
    );
    const envelope = (await (await api("?search=user-&limit=5&offset=20&envelope=true")).json()) as { data: { account: string }[]; pagination: unknown };
    expect(envelope.pagination).toEqual({ total: 23, offset: 20, limit: 5 });
    expect(envelope.data.map((c) => c.account)).toEqual(["user-02", "user-01", "user-00"]);
    expect(await (await api("?offset=500")).json()).toEqual([]);
  });
});

describe("GET /api/v1/connections/{connector}/{account}", () => {
  test("one Connection; 404 connection_not_found for an unknown one and for another deployment's", async () => {
    const response = await api("/github/alice");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ account: "alice", externalId: "1001", displayName: "alice-gh", params: {}, metadata: { login: "alice-gh" } });
    for (const [path, key] of [
      ["/github/nobody", ada.apiKey],
      ["/gmail/alice", ada.apiKey],
      ["/github/bob", eve.apiKey],
    ] as const) {
      const missing = await api(path, key);
      expect(missing.status, path).toBe(404);
      expect(((await missing.json()) as { code: string }).code).toBe("connection_not_found");
    }
  });
});

describe("lastEventAt", () => {
  test("is set when an event of the connection is recorded", async () => {
    const before = (await (await api("/github/alice")).json()) as { lastEventAt: string | null };
    expect(before.lastEventAt).toBeNull();
    const payload = githubIssuesPayload("opened");
    (payload.sender as { id: number }).id = 1001;
    const hook = githubWebhook("issues", payload, github.webhookSecret);
    const answer = await globalThis.fetch(`${app.url}/webhooks/${ada.deploymentId}/github`, { method: "POST", headers: hook.headers, body: hook.body });
    expect(answer.status).toBe(200);
    const after = (await (await api("/github/alice")).json()) as { lastEventAt: string | null };
    expect(after.lastEventAt).not.toBeNull();
    expect(((await (await api("/github/bob")).json()) as { lastEventAt: string | null }).lastEventAt).toBeNull();
  });
});

describe("DELETE /api/v1/connections/{connector}/{account}", () => {
  test("another deployment's key gets 404 and nothing happens, not even at the provider", async () => {
    const response = await api("/github/bob", eve.apiKey, { method: "DELETE" });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe("connection_not_found");
    expect(github.revocations).toEqual([]);
    expect(((await (await api("/github/bob")).json()) as { status: string }).status).toBe("ACTIVE");
  });

  test("204: DISCONNECTED, tokens forgotten, the grant revoked at GitHub; repeating it is 204 and does nothing more", async () => {
    const row = await app.database.prisma.connectedAccount.findFirstOrThrow({ where: { deploymentId: ada.deploymentId, account: "alice" } });
    const token = app.app.box.open(row.accessTokenEncrypted);
    expect((await globalThis.fetch(`${github.apiUrl}/user`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

    const response = await api("/github/alice", ada.apiKey, { method: "DELETE" });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");

    const after = await app.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id: row.id } });
    expect(after).toMatchObject({ status: "DISCONNECTED", accessTokenEncrypted: "", refreshTokenEncrypted: null, tokenExpiresAt: null });
    expect(github.revocations).toEqual([{ clientId: github.clientId, accessToken: token }]);
    expect((await globalThis.fetch(`${github.apiUrl}/user`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect(((await (await api("/github/alice")).json()) as { status: string }).status).toBe("DISCONNECTED");

    expect((await api("/github/alice", ada.apiKey, { method: "DELETE" })).status).toBe(204);
    expect(github.revocations).toHaveLength(1);
    // Counted once for the operator's dashboards, however often the deletion is repeated.
    const metrics = await (await globalThis.fetch(`${app.url}/metrics`)).text();
    expect(metrics).toContain('switchyard_grant_revocations_total{connector="github",outcome="revoked"} 1');
    expect(((await (await api("?status=DISCONNECTED")).json()) as { account: string }[]).map((c) => c.account)).toEqual(["alice"]);
  });

  test("never connected: 404 connection_not_found", async () => {
    const response = await api("/github/never", ada.apiKey, { method: "DELETE" });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe("connection_not_found");
  });
});
