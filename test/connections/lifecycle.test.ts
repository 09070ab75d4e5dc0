import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ReauthRequiredError } from "../../src/connections/accessTokens.ts";
import { connectAccount, requestAuthUrl } from "../helpers/connectFlow.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { DeploymentEvents, SaveForwardingSettings, SigningSecret } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type ReceivedRequest, type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The operator's server learns what happens to its end users' connections from
 * `switchyard.connection_*` events: forwarded like a provider's (signed, retried, in the event log)
 * when listed in the Forwarding Trigger List, each carrying the Connection — and never a token.
 */

let app: TestApp;
let github: FakeGitHub;
let receiver: Receiver;
let ada: Operator;
let signingSecret: string;

const LISTED = ["connection_created", "connection_reauthorized", "connection_reauth_required", "connection_deleted"];

beforeAll(async () => {
  [github, receiver] = await Promise.all([startFakeGitHub({ expiringTokens: true }), startReceiver()]);
  app = await startTestApp({ ...github.env(), DELIVERY_RETRY_SCHEDULE: "100ms,200ms" }, { worker: true });
  ada = await createOperator(app, "Ada");
}, 60_000);
afterAll(async () => {
  await app?.close();
  await Promise.all([github?.close(), receiver?.close()]);
});

const lifecycleRequests = (type: string, account: string) =>
  receiver.requests.filter((r) => {
    const body = JSON.parse(r.body) as { type: string; account: string };
    return body.type === type && body.account === account;
  });

async function received(type: string, account: string, count = 1): Promise<ReceivedRequest> {
  await receiver.waitFor(() => lifecycleRequests(type, account).length >= count);
  return lifecycleRequests(type, account)[count - 1];
}

const connectionOf = async (account: string) => {
  const response = await fetch(`${app.url}/api/v1/connections/github/${account}`, { headers: { "x-api-key": ada.apiKey } });
  return (await response.json()) as Record<string, unknown>;
};

describe("lifecycle events", () => {
  test("a connection made before its trigger is listed is recorded, not forwarded", async () => {
    github.setIdentity({ id: 7, login: "carol-gh" });
    await connectAccount(app, ada, { connector: "github", account: "carol", provider: github });
    const events = ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 50 }, { token: ada.token })).deployment!.events;
    const created = events.find((e) => e.type === "switchyard.connection_created" && e.account === "carol");
    expect(created).toMatchObject({ connector: "switchyard", trigger: "connection_created" });
    expect(created!.deliveries).toEqual([]);
  });

  test("once listed: created, authorized again, needing a new authorization and deleted reach the operator's server, signed", async () => {
    ok(
      await app.gql(
        SaveForwardingSettings,
        {
          deploymentId: ada.deploymentId,
          input: { forwardingUrl: `${receiver.url}/hooks`, triggers: LISTED.map((trigger) => ({ connector: "switchyard", trigger })) },
        },
        { token: ada.token },
      ),
    );
    signingSecret = ok(await app.gql(SigningSecret, { id: ada.deploymentId }, { token: ada.token })).deployment!.signingSecret!;

    github.setIdentity({ id: 1001, login: "alice-gh" });
    await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
    const created = await received("switchyard.connection_created", "alice");
    const body = new Webhook(signingSecret).verify(created.body, created.headers as Record<string, string>) as Record<string, unknown>;
    expect(body).toMatchObject({ type: "switchyard.connection_created", connector: "switchyard", trigger: "connection_created", account: "alice", deploymentId: ada.deploymentId });
    expect(body.data).toEqual({ connection: await connectionOf("alice"), error: null });

    await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
    const again = JSON.parse((await received("switchyard.connection_reauthorized", "alice")).body) as { data: { connection: { status: string } } };
    expect(again.data.connection.status).toBe("ACTIVE");

    // GitHub refuses the refresh token: the connection needs a new authorization, and says why.
    const { id } = await connectionOf("alice");
    github.rejectRefreshTokens(true);
    await expect(app.app.accessTokens.fresh(String(id), { forceRefresh: true })).rejects.toBeInstanceOf(ReauthRequiredError);
    github.rejectRefreshTokens(false);
    const lapsed = JSON.parse((await received("switchyard.connection_reauth_required", "alice")).body) as {
      data: { connection: { status: string }; error: { code: string; message: string } };
    };
    expect(lapsed.data.connection.status).toBe("REAUTH_REQUIRED");
    expect(lapsed.data.error).toEqual({ code: "bad_refresh_token", message: "The refresh token passed is incorrect or expired." });
    // Asked again, it is still REAUTH_REQUIRED: no second event.
    await expect(app.app.accessTokens.fresh(String(id), { forceRefresh: true })).rejects.toBeInstanceOf(ReauthRequiredError);

    const deleted = await fetch(`${app.url}/api/v1/connections/github/alice`, { method: "DELETE", headers: { "x-api-key": ada.apiKey } });
    expect(deleted.status).toBe(204);
    const gone = JSON.parse((await received("switchyard.connection_deleted", "alice")).body) as { data: { connection: { status: string }; error: null } };
    expect(gone.data).toEqual({ connection: await connectionOf("alice"), error: null });
    expect(gone.data.connection.status).toBe("DISCONNECTED");
    expect((await fetch(`${app.url}/api/v1/connections/github/alice`, { method: "DELETE", headers: { "x-api-key": ada.apiKey } })).status).toBe(204);

    // Everything settled: exactly one of each, and no token anywhere in what was forwarded.
    await receiver.waitFor((all) => all.length >= 4);
    for (const type of LISTED) expect(lifecycleRequests(`switchyard.${type}`, "alice"), type).toHaveLength(1);
    const tokens = github.grants.flatMap((g) => [g.accessToken, g.refreshToken ?? ""]).filter(Boolean);
    expect(tokens.length).toBeGreaterThan(2);
    for (const request of receiver.requests) for (const token of tokens) expect(request.body).not.toContain(token);
  });

  test("the switchyard connector is in the catalog, authMode NONE, and is never authorized", async () => {
    const { connector } = ok(
      await app.gql<{ connector: { authMode: string; category: string; triggers: { name: string }[] } | null }, { name: string }>(
        `query($name: String!) { connector(name: $name) { authMode category triggers { name } } }`,
        { name: "switchyard" },
      ),
    );
    expect(connector).toEqual({
      authMode: "NONE",
      category: "other",
      triggers: [...LISTED, "subscription_failed", "polling_failed"].map((name) => ({ name })),
    });
    const response = await requestAuthUrl(app, ada.apiKey, "switchyard", "alice");
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe("unknown_connector");
  });
});
