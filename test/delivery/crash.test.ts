import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { createTestDatabase } from "../helpers/database.ts";
import { type FakeGitHub, githubIssuesPayload, githubWebhook, type SignedRequest, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { SaveForwardingSettings, SigningSecret } from "../helpers/forwarding.ts";
import { createOperator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { type ServiceProcess, serviceProcess } from "../helpers/serviceProcess.ts";
import { scaled } from "../helpers/timing.ts";
import { ok } from "../helpers/testApp.ts";

/**
 * The promise of the product: an event answered with a 2xx is never lost. The service runs as a
 * child process on its own data, receives 1,000 signed GitHub webhooks from 16 concurrent senders
 * (which, like GitHub, redeliver what was not answered), and is `kill -9`ed at random moments —
 * while recording, while delivering — and restarted on the same data. Every event reaches the
 * operator's server; repeats carry the same webhook-id.
 */

const EVENTS = 1000;
const SENDERS = 16;
const KILLS = 3;

let github: FakeGitHub;
let receiver: Receiver;
let service: ServiceProcess;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  [github, receiver] = await Promise.all([startFakeGitHub(), startReceiver()]);
  let storage: Record<string, string>;
  const database = await createTestDatabase();
  if (database.url) {
    storage = { DATABASE_URL: database.url };
    cleanup = database.drop;
  } else {
    const dataDir = mkdtempSync(join(tmpdir(), "switchyard-crash-"));
    storage = { DATA_DIR: dataDir };
    cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
  }
  service = await serviceProcess({
    ...storage,
    ...github.env(),
    DELIVERY_RETRY_SCHEDULE: "100ms,200ms,500ms,1s,2s,5s,10s",
    DELIVERY_TIMEOUT_MS: "2000",
    // One receiver takes all 1000: the per-destination cap (4 by default, for isolation) would make
    // this a test of one URL's throughput on a busy machine, and the signatures verified at the end
    // older than Standard Webhooks' 5 minutes of tolerance.
    DELIVERY_MAX_IN_FLIGHT_PER_URL: "64",
  });
  await service.start();
}, scaled(90_000));

afterAll(async () => {
  await service?.stop();
  await Promise.all([github?.close(), receiver?.close()]);
  await cleanup?.();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test(`${EVENTS} events, ${KILLS} kill -9s: every accepted event arrives, repeats only with the same webhook-id`, async () => {
  const t0 = Date.now();
  const phase = (name: string) => console.log(`${name}: ${Date.now() - t0} ms`);
  const ada = await createOperator(service.client, "Ada");
  await connectAccount(service.client, ada, { connector: "github", account: "alice", provider: github });
  ok(
    await service.client.gql(
      SaveForwardingSettings,
      { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/crash`, triggers: [{ connector: "github", trigger: "issue_opened" }] } },
      { token: ada.token },
    ),
  );
  const secret = ok(await service.client.gql(SigningSecret, { id: ada.deploymentId }, { token: ada.token })).deployment!.signingSecret!;

  // Built once: a redelivery is byte-for-byte the same request, as GitHub's is.
  const requests: SignedRequest[] = Array.from({ length: EVENTS }, (_, i) =>
    githubWebhook("issues", githubIssuesPayload("opened", { number: i + 1, title: `Crash test ${i + 1}` }), github.webhookSecret, { deliveryId: randomUUID() }),
  );
  phase("set up");
  const accepted = new Set<number>();
  let next = 0;
  let refused = 0;

  async function sender() {
    for (let i = next++; i < EVENTS; i = next++) {
      for (;;) {
        try {
          const response = await fetch(`${service.url}/webhooks/${ada.deploymentId}/github`, { method: "POST", headers: requests[i].headers, body: requests[i].body });
          if (response.status === 200) {
            const outcome = (await response.json()) as { recorded: number; duplicates: number };
            expect(outcome.recorded + outcome.duplicates).toBe(1);
            accepted.add(i + 1);
            break;
          }
          await response.body?.cancel();
        } catch {
          // Killed mid-request: no answer, so the provider will redeliver.
        }
        refused++;
        await sleep(50);
      }
    }
  }

  // Kills at random points while events arrive, and one more while the last ones are being delivered.
  const thresholds = Array.from({ length: KILLS - 1 }, (_, k) => Math.floor(((k + 0.3 + Math.random() * 0.6) * EVENTS) / KILLS)).sort((a, b) => a - b);
  let restarts = 0;
  async function killer() {
    for (const threshold of thresholds) {
      while (accepted.size < threshold) await sleep(5);
      await sleep(Math.random() * 50);
      phase(`kill at ${accepted.size}`);
      await service.kill9();
      await service.start();
      phase("restarted");
      restarts++;
    }
  }

  await Promise.all([killer(), ...Array.from({ length: SENDERS }, sender)]);
  expect(accepted.size).toBe(EVENTS);
  phase("all accepted");

  // The last kill: while deliveries are in flight (or queued).
  await sleep(Math.random() * 100);
  const deliveredBeforeLastKill = new Set(receiver.requests.map((r) => r.headers["webhook-id"])).size;
  await service.kill9();
  await service.start();
  restarts++;
  expect(restarts).toBe(KILLS);

  const number = (body: string) => (JSON.parse(body) as { data: { issue: { number: number } } }).data.issue.number;
  await receiver.waitFor((all) => new Set(all.filter((r) => r.path === "/crash").map((r) => number(r.body))).size === EVENTS, 45_000);

  phase("all delivered");
  const idsByNumber = new Map<number, Set<string>>();
  const numberById = new Map<string, number>();
  const webhook = new Webhook(secret);
  for (const request of receiver.requests.filter((r) => r.path === "/crash")) {
    const id = String(request.headers["webhook-id"]);
    const n = number(request.body);
    expect(webhook.verify(request.body, request.headers as Record<string, string>)).toMatchObject({ id, type: "github.issue_opened", account: "alice" });
    idsByNumber.set(n, (idsByNumber.get(n) ?? new Set()).add(id));
    expect(numberById.get(id) ?? n).toBe(n);
    numberById.set(id, n);
  }
  expect([...idsByNumber.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: EVENTS }, (_, i) => i + 1));
  // One event per webhook, whatever was redelivered or repeated.
  for (const ids of idsByNumber.values()) expect(ids.size).toBe(1);
  const duplicates = receiver.requests.filter((r) => r.path === "/crash").length - EVENTS;
  console.log(
    `crash test: ${EVENTS} events, ${restarts} kill -9s, ${refused} unanswered sends redelivered, ` +
      `${deliveredBeforeLastKill} delivered before the last kill, ${duplicates} repeated deliveries (same webhook-id)`,
  );
}, scaled(240_000));
