import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test, vi } from "vitest";
import { createTestDatabase } from "../helpers/database.ts";
import { SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { createOperator } from "../helpers/operators.ts";
import { startReceiver } from "../helpers/receiver.ts";
import { serviceProcess } from "../helpers/serviceProcess.ts";

vi.setConfig({ testTimeout: 120_000 });

/**
 * At LOG_LEVEL=info the process says what happened to each delivery attempt and each refused
 * inbound request — one JSON line each, with ids and status, never the URL, a header or a body —
 * and stops cleanly with its background work (worker, poller, retention) running.
 */
const database = await createTestDatabase();
afterAll(() => database.drop());

test("one info line per delivery outcome and per refused inbound request, without secrets", async () => {
  const receiver = await startReceiver();
  receiver.respond((request) => (request.path.includes("fail") ? { status: 500, body: "secret-response-body" } : 200));
  const base = { LOG_LEVEL: "info", DELIVERY_RETRY_SCHEDULE: "100ms" };
  const service = await serviceProcess(database.url ? { ...base, DATABASE_URL: database.url } : { ...base, DATA_DIR: mkdtempSync(join(tmpdir(), "sy-logs-")) });
  await service.start();
  try {
    const ada = await createOperator(service.client, "Ada");
    const save = await service.client.gql(
      SaveForwardingSettings,
      { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/fail?token=url-secret`, headerKey: "x-token", headerValue: "header-secret", triggers: [] } },
      { token: ada.token },
    );
    expect(save.errors).toBeUndefined();
    const sent = await service.client.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { apiKey: ada.apiKey });
    const eventId = sent.data!.sendTestEvent.id;
    await receiver.waitFor(() => receiver.byEventId(eventId).length === 2);
    expect((await fetch(`${service.url}/webhooks/${ada.deploymentId}/github`, { method: "POST", body: '{"x":1}', headers: { "x-hub-signature-256": "sha256=00" } })).status).toBe(401);

    const lines = () =>
      service
        .output()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    await vi.waitFor(() => expect(lines().filter((l) => l.msg === "delivery attempt" && l.eventId === eventId)).toHaveLength(2), { timeout: 20_000 });
    const attempts = lines().filter((l) => l.msg === "delivery attempt" && l.eventId === eventId);
    expect(attempts.map((l) => [l.level, l.attempt, l.outcome, l.statusCode])).toEqual([
      [30, 1, "retrying", 500],
      [30, 2, "failed", 500],
    ]);
    expect(attempts[0]).toMatchObject({ deploymentId: ada.deploymentId, deliveryId: expect.stringMatching(/^dlv_/) });
    // stdout is written asynchronously: wait for the line rather than expect it at once.
    await vi.waitFor(
      () =>
        expect(lines().filter((l) => l.msg === "inbound webhook refused")).toEqual([
          expect.objectContaining({ level: 30, deploymentId: ada.deploymentId, connector: "github", status: 401, code: "invalid_signature" }),
        ]),
      { timeout: 20_000 },
    );
    for (const secret of ["url-secret", "header-secret", "secret-response-body", '{"x":1}', ada.apiKey, ada.token]) expect(service.output()).not.toContain(secret);
  } finally {
    expect(await service.stop()).toBe(0);
    await receiver.close();
  }
});
