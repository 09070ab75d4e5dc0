import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { print } from "graphql";
import { stopCli, switchyard } from "../helpers/cli.ts";
import { SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { createOperator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The embedded database needs disk: /readyz stops sending traffic here before the disk is full, and
 * providers' webhooks and operators' test events are refused meanwhile (they are sent again later)
 * rather than stored until a write meets a full disk and ends the process.
 */
let roomy: TestApp;
let cramped: TestApp;
beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "sy-disk-space-"));
  roomy = await startTestApp({ DATA_DIR: dataDir, MIN_FREE_DISK_MB: "1" });
  // More than any disk here has free.
  cramped = await startTestApp({ DATA_DIR: dataDir, MIN_FREE_DISK_MB: String(1024 * 1024 * 1024) });
});
afterEach(stopCli);
afterAll(async () => {
  await roomy.close();
  await cramped.close();
});

test.skipIf(process.env.TEST_DATABASE_URL !== undefined)(
  "readiness fails with disk_space_low when the embedded database's disk has less than MIN_FREE_DISK_MB free (embedded only: PostgreSQL's disk is its server's)",
  async () => {
    const ready = await fetch(`${roomy.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ready", database: "pglite", redis: "off", freeDiskMb: expect.any(Number) });

    const low = await fetch(`${cramped.url}/readyz`);
    expect(low.status).toBe(503);
    expect(await low.json()).toMatchObject({ code: "disk_space_low", freeDiskMb: expect.any(Number) });
    expect((await fetch(`${cramped.url}/healthz`)).status).toBe(200); // the process itself is fine
  },
);

test.skipIf(process.env.TEST_DATABASE_URL !== undefined)(
  "inbound webhooks are refused with 503 disk_space_low and Retry-After while the embedded database's disk is low (embedded only)",
  async () => {
    const post = async (app: TestApp) => {
      const { deploymentId } = await createOperator(app, "Ada");
      return fetch(`${app.url}/webhooks/${deploymentId}/github`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-github-event": "issues", "x-github-delivery": "disk-space-1", "x-hub-signature-256": "sha256=00" },
        body: JSON.stringify({ action: "opened" }),
      });
    };
    // Past the disk check: the signature is what refuses this one.
    const roomyAnswer = await post(roomy);
    expect(roomyAnswer.status).toBe(401);
    expect(await roomyAnswer.json()).toMatchObject({ code: "invalid_signature" });

    const refused = await post(cramped);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await refused.json()).toMatchObject({ code: "disk_space_low", freeDiskMb: expect.any(Number) });
  },
);

test.skipIf(process.env.TEST_DATABASE_URL !== undefined)(
  "a test event is refused the same way over GraphQL (SERVICE_UNAVAILABLE, HTTP 503, Retry-After) while the embedded database's disk is low (embedded only)",
  async () => {
    const send = async (app: TestApp) => {
      const ada = await createOperator(app, "Ada");
      return fetch(`${app.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${ada.token}` },
        body: JSON.stringify({ query: print(SendTestEvent), variables: { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } } }),
      });
    };
    const recorded = await send(roomy);
    expect(recorded.status).toBe(200);
    expect(ok((await recorded.json()) as { data: { sendTestEvent: { id: string } } }).sendTestEvent.id).toMatch(/^evt_/);

    const refused = await send(cramped);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("60");
    const body = (await refused.json()) as { data: unknown; errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0].extensions.code).toBe("SERVICE_UNAVAILABLE");
    expect(body.errors[0].message).toContain("MIN_FREE_DISK_MB");
  },
);

test.skipIf(process.env.TEST_DATABASE_URL !== undefined)(
  "`switchyard trigger` says the event was refused for now, why, and when to run it again (embedded only)",
  async () => {
    const ada = await createOperator(cramped, "Ada");
    const cli = switchyard(["trigger", "github.issue_opened", "--url", cramped.url, "--api-key", ada.apiKey]);
    expect(await cli.exited).toBe(1);
    expect(cli.stdout()).toBe("");
    expect(cli.stderr()).toMatch(/^Switchyard cannot take this now: The embedded database's disk has \d+ MB free, under MIN_FREE_DISK_MB: nothing new is stored until space is freed\. Send this again later\.\nRun the command again in 60 s\.\n$/);
  },
);

test.skipIf(process.env.TEST_DATABASE_URL !== undefined)(
  "the poller reads nothing while the embedded database's disk is low: its connections stay due for later (embedded only)",
  async () => {
    /** A deployment polling Spotify's recently played tracks, with one connection the poller has never seen. */
    const pollingConnection = async (app: TestApp) => {
      const ada = await createOperator(app, "Ada");
      ok(
        await app.gql(
          SaveForwardingSettings,
          { deploymentId: ada.deploymentId, input: { forwardingUrl: "https://example.com/hook", triggers: [{ connector: "spotify", trigger: "track_played" }] } },
          { token: ada.token },
        ),
      );
      return app.database.prisma.connectedAccount.create({
        data: { deploymentId: ada.deploymentId, connector: "spotify", account: "alice", externalId: "user-alice", accessTokenEncrypted: app.app.box.seal("token"), scopes: [], status: "ACTIVE" },
      });
    };
    const nextPoll = (app: TestApp, id: string) => app.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id } }).then((row) => row.nextPollAt);

    const roomyConnection = await pollingConnection(roomy);
    expect((await roomy.app.createPoller().runOnce()).scheduled).toBe(1);
    expect(await nextPoll(roomy, roomyConnection.id)).not.toBeNull();

    const crampedConnection = await pollingConnection(cramped);
    expect(await cramped.app.createPoller().runOnce()).toEqual({ scheduled: 0, polled: 0, recorded: 0 });
    expect(await nextPoll(cramped, crampedConnection.id)).toBeNull();
  },
);
