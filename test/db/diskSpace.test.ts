import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createOperator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The embedded database needs disk: /readyz stops sending traffic here before the disk is full, and
 * providers' webhooks are refused meanwhile (they deliver again later) rather than stored until a
 * write meets a full disk and ends the process.
 */
let roomy: TestApp;
let cramped: TestApp;
beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "sy-disk-space-"));
  roomy = await startTestApp({ DATA_DIR: dataDir, MIN_FREE_DISK_MB: "1" });
  // More than any disk here has free.
  cramped = await startTestApp({ DATA_DIR: dataDir, MIN_FREE_DISK_MB: String(1024 * 1024 * 1024) });
});
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
