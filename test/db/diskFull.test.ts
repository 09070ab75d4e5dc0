import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeGitHub, githubIssuesPayload, githubWebhook, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { forwardTo } from "../helpers/live.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type OwnPostgres, ownPostgres, ownServersMissing } from "../helpers/ownServers.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { type ServiceProcess, serviceProcess } from "../helpers/serviceProcess.ts";
import { scaled } from "../helpers/timing.ts";

/**
 * The PostgreSQL server's disk fills up under a running instance: the event table cannot grow. A
 * provider's webhook is answered 503 `disk_space_low` with Retry-After (SERVICE_UNAVAILABLE on
 * GraphQL), not 500; reads go on; the log has one warning for it, no stack and no error per
 * request; and once space is freed on the server, the provider's redelivery is accepted without a
 * restart. The full disk is a file-size limit on the server (`ulimit -f`): PostgreSQL refuses to
 * extend the table as it does on ENOSPC, with the same "Check free disk space." hint.
 */
const MAX_FILE_MB = 20;

describe.skipIf(ownServersMissing !== undefined)(`the database server's disk is full (${ownServersMissing ?? "own PostgreSQL"})`, () => {
  let postgres: OwnPostgres;
  let github: FakeGitHub;
  let receiver: Receiver;
  let service: ServiceProcess;
  let ada: Operator;

  beforeAll(async () => {
    // Without autovacuum, nothing but the test frees the filled table's space.
    postgres = await ownPostgres({ maxFileMb: MAX_FILE_MB, settings: ["autovacuum=off"] });
    await postgres.start();
    [github, receiver] = await Promise.all([startFakeGitHub(), startReceiver()]);
    service = await serviceProcess({
      ...github.env(),
      DATABASE_URL: postgres.url,
      // With the server's autovacuum off Switchyard vacuums its tables itself: not during this test.
      VACUUM_INTERVAL: "1h",
    });
    await service.start();
    ada = await createOperator(service.client, "Ada");
    await connectAccount(service.client, ada, { connector: "github", account: "alice", provider: github });
    await forwardTo(service.client, ada.deploymentId, `${receiver.url}/full`, { token: ada.token });
  }, scaled(120_000));

  afterAll(async () => {
    await service?.stop();
    await Promise.all([postgres?.remove(), github?.close(), receiver?.close()]);
  }, scaled(60_000));

  /**
   * Fills a table of Ada's deployment up to the file-size limit: `insert` adds 2,000 rows of about
   * 1.5 kB, numbered by its $2. The rows leave a few hundred bytes free on each page, where a small
   * row would still fit: a page that is a tenth used counts as full from then on, so a new row needs
   * a new page.
   */
  async function fillToLimit(client: pg.Client, table: string, insert: string) {
    for (let chunk = 0; ; chunk++) {
      try {
        await client.query(insert, [ada.deploymentId, chunk]);
      } catch (error) {
        expect((error as { hint?: string }).hint).toBe("Check free disk space.");
        await client.query(`alter table ${table} set (fillfactor = 10)`);
        return;
      }
      if (chunk > (MAX_FILE_MB * 1024 * 1024) / (2000 * 1400)) throw new Error(`${table} grew past the file-size limit: the limit is not in force`);
    }
  }

  /** Events no account sent. */
  const fillEventTable = (client: pg.Client) =>
    fillToLimit(
      client,
      "trigger_event",
      `insert into trigger_event (id, deployment_id, connector, trigger, account, payload, occurred_at, received_at, dedupe_key)
       select 'evt_filler_' || $2::int || '_' || g, $1, 'github', 'filler', 'filler', json_build_object('filler', repeat('x', 1500)), now(), now(), 'filler:' || $2::int || ':' || g
       from generate_series(1, 2000) g`,
    );

  /** Revoked keys: the API key table is one only Prisma writes. */
  const fillKeyTable = (client: pg.Client) =>
    fillToLimit(
      client,
      "api_key",
      `insert into api_key (id, deployment_id, prefix, hash, created_at, revoked_at)
       select 'key_filler_' || $2::int || '_' || g, $1, repeat(md5(g::text), 45), 'filler:' || $2::int || ':' || g, now(), now()
       from generate_series(1, 2000) g`,
    );

  /** A GraphQL operation in Ada's console session, as the browser sends it. */
  const asAda = (query: string, variables: Record<string, unknown>) =>
    fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ada.token}` },
      body: JSON.stringify({ query, variables }),
    });

  test("503 with Retry-After on both surfaces, one warning, reads go on, and the redelivery is accepted once space is freed", async () => {
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      await fillEventTable(client);
      const logBefore = service.output().length;

      const webhook = githubWebhook("issues", githubIssuesPayload("opened", { number: 1, title: "While the disk is full" }), github.webhookSecret, { deliveryId: randomUUID() });
      const post = () => fetch(`${service.url}/webhooks/${ada.deploymentId}/github`, { method: "POST", headers: webhook.headers, body: webhook.body });
      const refused = await post();
      expect(refused.status).toBe(503);
      expect(refused.headers.get("content-type")).toBe("application/problem+json");
      expect(refused.headers.get("retry-after")).toBe("60");
      expect(await refused.json()).toMatchObject({ status: 503, code: "disk_space_low" });

      const testEvent = await asAda(
        "mutation FullSendTestEvent($deploymentId: ID!, $trigger: TriggerRefInput!) { sendTestEvent(deploymentId: $deploymentId, trigger: $trigger) { id } }",
        { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } },
      );
      expect(testEvent.status).toBe(503);
      expect(testEvent.headers.get("retry-after")).toBe("60");
      expect(((await testEvent.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe("SERVICE_UNAVAILABLE");

      // Reading needs no space.
      const data = await fetch(`${service.url}/api/data`, { headers: { "x-api-key": ada.apiKey } });
      expect(data.status).toBe(200);
      // Ready still (every instance shares the server: none would take over), and saying why writes fail.
      const ready = await fetch(`${service.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: "ready", databaseDisk: "full" });

      // One warning (LOG_LEVEL=warn: every line is a warning or worse), no stack, no SQL.
      const log = service.output().slice(logBefore);
      const lines = log.split("\n").filter((line) => line.trim() !== "");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("the database cannot store anything: its disk is full");
      expect(log).not.toMatch(/"level":50|unexpected error|\bat \w+ \(|insert into/);

      // A write through Prisma (the console's statements) is refused the same way: a new API key once
      // the key table cannot grow either.
      await fillKeyTable(client);
      const generated = await asAda("mutation FullGenerateApiKey($deploymentId: ID!) { generateApiKey(deploymentId: $deploymentId) { apiKey } }", {
        deploymentId: ada.deploymentId,
      });
      expect(generated.status).toBe(503);
      expect(generated.headers.get("retry-after")).toBe("60");
      expect(((await generated.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe("SERVICE_UNAVAILABLE");
      // The key in use still works (the refused rotation left it as it was).
      expect((await fetch(`${service.url}/api/data`, { headers: { "x-api-key": ada.apiKey } })).status).toBe(200);
      expect(service.output().slice(logBefore)).not.toMatch(/"level":50|unexpected error|\bat \w+ \(|insert into|update /);

      // Space is freed on the server: GitHub's redelivery of the same request is stored and forwarded.
      await client.query(`delete from trigger_event where trigger = 'filler'`);
      await client.query("alter table trigger_event reset (fillfactor)");
      await client.query("vacuum trigger_event");
      const accepted = await post();
      expect(accepted.status).toBe(200);
      expect(await accepted.json()).toMatchObject({ recorded: 1, forwarded: 1 });
      await receiver.waitFor((requests) => requests.some((request) => request.body.includes("While the disk is full")));
    } finally {
      await client.end();
    }
  }, scaled(120_000));
});
