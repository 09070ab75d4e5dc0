import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { loadConfig } from "../src/config.ts";

const dataDir = () => mkdtempSync(join(tmpdir(), "sy-config-"));

test("defaults: port 4000, PUBLIC_URL from the port, embedded database, Svix's retry schedule, 64 requests in flight per forwarding URL, a vacuum pass every 10 s", () => {
  const config = loadConfig({ DATA_DIR: dataDir() });
  expect(config.port).toBe(4000);
  expect(config.publicUrl).toBe("http://localhost:4000");
  expect(config.databaseUrl).toBeUndefined();
  expect(config.connectUrlTtlSeconds).toBe(1800);
  expect(config.deliveryRetryScheduleMs).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
  expect(config.deliveryMaxInFlightPerUrl).toBe(64);
  expect(config.vacuumIntervalMs).toBe(10_000);
});

test("development generates ENCRYPTION_KEY into DATA_DIR once, readable by the owner only", () => {
  const dir = dataDir();
  const first = loadConfig({ DATA_DIR: dir });
  const second = loadConfig({ DATA_DIR: dir });
  expect(first.encryptionKey.length).toBe(32);
  expect(second.encryptionKey.equals(first.encryptionKey)).toBe(true);
  const file = join(dir, "encryption.key");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(Buffer.from(readFileSync(file, "utf8"), "base64").length).toBe(32);
});

test.each([
  [{ NODE_ENV: "production" }, /ENCRYPTION_KEY: required when NODE_ENV=production/],
  [{ ENCRYPTION_KEY: "c2hvcnQ=" }, /ENCRYPTION_KEY: must be 32 bytes in base64/],
  [{ PORT: "eighty" }, /PORT:/],
  [{ DATABASE_URL: "mysql://nope" }, /DATABASE_URL: must be a postgresql:\/\/ connection string/],
  [{ DELIVERY_RETRY_SCHEDULE: "5s,soon" }, /DELIVERY_RETRY_SCHEDULE: "soon" is not a duration/],
  [{ POLL_INTERVAL: "often" }, /POLL_INTERVAL: "often" is not a duration/],
  [{ POLLING_FAILED_AFTER: "a day" }, /POLLING_FAILED_AFTER: "a day" is not a duration/],
  [{ SUBSCRIPTION_ACCESS_RECHECK: "10" }, /SUBSCRIPTION_ACCESS_RECHECK: "10" is not a duration/],
  [{ VACUUM_INTERVAL: "500ms" }, /VACUUM_INTERVAL: "500ms" is shorter than 1s/],
  [{ DATABASE_STATEMENT_TIMEOUT: "never" }, /DATABASE_STATEMENT_TIMEOUT: "never" is not a duration .*\(or 0 for none\)/],
  [{ POLL_INTERVAL: "often", BODY_TIMEOUT: "1y" }, /POLL_INTERVAL: "often" is not a duration.*\n {2}BODY_TIMEOUT: "1y" is not a duration/],
  [{ PUBLIC_URL: "not a url" }, /PUBLIC_URL/],
])("a bad value stops start-up naming the variable: %o", (env, message) => {
  expect(() => loadConfig({ DATA_DIR: dataDir(), ...env })).toThrow(message);
});

test("SUBSCRIPTION_ACCESS_RECHECK: 10 s by default, any duration when set", () => {
  expect(loadConfig({ DATA_DIR: dataDir() }).subscriptionAccessRecheckMs).toBe(10_000);
  expect(loadConfig({ DATA_DIR: dataDir(), SUBSCRIPTION_ACCESS_RECHECK: "200ms" }).subscriptionAccessRecheckMs).toBe(200);
});

test("DELIVERY_RETRY_SCHEDULE accepts ms, s, m, h and d", () => {
  expect(loadConfig({ DATA_DIR: dataDir(), DELIVERY_RETRY_SCHEDULE: "100ms,2s,1m,1h,1d" }).deliveryRetryScheduleMs).toEqual([
    100, 2000, 60_000, 3_600_000, 86_400_000,
  ]);
});

test("SIGNUP: open in development and test, closed in production (after the first account), and either when set", () => {
  const key = Buffer.alloc(32, 1).toString("base64");
  expect(loadConfig({ DATA_DIR: dataDir() }).signup).toBe("open");
  expect(loadConfig({ DATA_DIR: dataDir(), NODE_ENV: "test" }).signup).toBe("open");
  expect(loadConfig({ DATA_DIR: dataDir(), NODE_ENV: "production", ENCRYPTION_KEY: key }).signup).toBe("closed");
  expect(loadConfig({ DATA_DIR: dataDir(), NODE_ENV: "production", ENCRYPTION_KEY: key, SIGNUP: "open" }).signup).toBe("open");
  expect(loadConfig({ DATA_DIR: dataDir(), SIGNUP: "closed" }).signup).toBe("closed");
  expect(() => loadConfig({ DATA_DIR: dataDir(), SIGNUP: "invite-only" })).toThrow(/SIGNUP: must be open or closed/);
});

test("ORGANIZATION_CREATION: owners when sign-up is closed, anyone when open, and either when set", () => {
  const key = Buffer.alloc(32, 1).toString("base64");
  expect(loadConfig({ DATA_DIR: dataDir() }).organizationCreation).toBe("anyone");
  expect(loadConfig({ DATA_DIR: dataDir(), NODE_ENV: "production", ENCRYPTION_KEY: key }).organizationCreation).toBe("owners");
  expect(loadConfig({ DATA_DIR: dataDir(), SIGNUP: "closed" }).organizationCreation).toBe("owners");
  expect(loadConfig({ DATA_DIR: dataDir(), SIGNUP: "closed", ORGANIZATION_CREATION: "anyone" }).organizationCreation).toBe("anyone");
  expect(loadConfig({ DATA_DIR: dataDir(), ORGANIZATION_CREATION: "owners" }).organizationCreation).toBe("owners");
  expect(() => loadConfig({ DATA_DIR: dataDir(), ORGANIZATION_CREATION: "admins" })).toThrow(/ORGANIZATION_CREATION: must be anyone or owners/);
});

test("TRUST_PROXY: none by default; true, false or a number of proxies", () => {
  expect(loadConfig({ DATA_DIR: dataDir() }).trustProxyHops).toBe(0);
  expect(loadConfig({ DATA_DIR: dataDir(), TRUST_PROXY: "false" }).trustProxyHops).toBe(0);
  expect(loadConfig({ DATA_DIR: dataDir(), TRUST_PROXY: "2" }).trustProxyHops).toBe(2);
  expect(loadConfig({ DATA_DIR: dataDir(), TRUST_PROXY: "true" }).trustProxyHops).toBe(Number.POSITIVE_INFINITY);
  expect(() => loadConfig({ DATA_DIR: dataDir(), TRUST_PROXY: "10.0.0.0/8" })).toThrow(/TRUST_PROXY: must be false \(the default\), true, or the number of proxies/);
});
