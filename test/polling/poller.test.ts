import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/database.ts";
import { createLogger } from "../../src/log.ts";
import { fakeClock } from "../helpers/clock.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { type FakeSpotify, startFakeSpotify } from "./fakeSpotify.ts";

/**
 * The poller on a fake clock against a fake Spotify list API: a connection with a listed polled
 * trigger is scheduled within one interval, read each interval after, forwards each new item once
 * (and again for a new version), and is not read while REAUTH_REQUIRED.
 */
const INTERVAL_MS = 60_000;
const clock = fakeClock(new Date("2026-03-01T12:00:00.000Z"));
const encryptionKey = randomBytes(32).toString("base64");
let app: TestApp;
let spotify: FakeSpotify;
let receiver: Receiver;
let ada: Operator;

beforeAll(async () => {
  [spotify, receiver] = await Promise.all([startFakeSpotify(), startReceiver()]);
  app = await startTestApp({ CONNECTOR_SPOTIFY_API_URL: spotify.apiUrl, CONNECTOR_SPOTIFY_TOKEN_URL: spotify.tokenUrl, CONNECTOR_SPOTIFY_CLIENT_ID: "spotify-client", CONNECTOR_SPOTIFY_CLIENT_SECRET: "spotify-secret", POLL_INTERVAL: "60s", ENCRYPTION_KEY: encryptionKey }, { clock });
  ada = await createOperator(app, "Ada");
  ok(
    await app.gql(
      SaveForwardingSettings,
      { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/spotify`, triggers: [{ connector: "spotify", trigger: "track_played" }] } },
      { token: ada.token },
    ),
  );
});
afterAll(async () => {
  await app?.close();
  await Promise.all([spotify?.close(), receiver?.close()]);
});

/** A connected Spotify listener, as the connect flow stores one (the token sealed). */
async function connect(account: string, token: string, status: "ACTIVE" | "REAUTH_REQUIRED" = "ACTIVE", refreshToken?: string) {
  spotify.listener(token);
  return app.database.prisma.connectedAccount.create({
    data: {
      deploymentId: ada.deploymentId,
      connector: "spotify",
      account,
      externalId: `user-${account}`,
      accessTokenEncrypted: app.app.box.seal(token),
      refreshTokenEncrypted: refreshToken ? app.app.box.seal(refreshToken) : null,
      scopes: ["user-read-recently-played"],
      status,
    },
  });
}

const schedule = (id: string) => app.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id }, select: { nextPollAt: true, pollLeaseUntil: true } });
const events = (id: string) => app.database.prisma.triggerEvent.findMany({ where: { connectedAccountId: id }, include: { deliveries: true }, orderBy: { occurredAt: "asc" } });
const requestsOf = (token: string) => spotify.requests.filter((r) => r.token === token);

test("a connection is scheduled within one interval, its first read records the position, and new plays are forwarded once each", async () => {
  const poller = app.app.createPoller();
  const alice = await connect("alice", "token-alice");
  spotify.play("token-alice", "old-track", new Date(clock.now().getTime() - 3_600_000));

  const first = await poller.runOnce();
  expect(first.scheduled).toBeGreaterThanOrEqual(1);
  const { nextPollAt } = await schedule(alice.id);
  expect(nextPollAt!.getTime()).toBeGreaterThanOrEqual(clock.now().getTime());
  expect(nextPollAt!.getTime()).toBeLessThan(clock.now().getTime() + INTERVAL_MS);
  expect(requestsOf("token-alice")).toHaveLength(0);

  // Due: the first read only records where the listener stands (the hour-old play is history).
  clock.advance(INTERVAL_MS);
  await poller.runOnce();
  expect(requestsOf("token-alice")).toHaveLength(1);
  expect(requestsOf("token-alice")[0].url.searchParams.has("after")).toBe(false);
  expect(await events(alice.id)).toHaveLength(0);
  const after = await schedule(alice.id);
  expect(after.pollLeaseUntil).toBeNull();
  expect(after.nextPollAt!.getTime()).toBeGreaterThanOrEqual(clock.now().getTime() + INTERVAL_MS);
  expect(after.nextPollAt!.getTime()).toBeLessThanOrEqual(clock.now().getTime() + INTERVAL_MS * 1.1);

  // Not due yet: nothing is read.
  spotify.play("token-alice", "new-track", clock.now());
  await poller.runOnce();
  expect(requestsOf("token-alice")).toHaveLength(1);

  clock.advance(INTERVAL_MS * 1.1);
  const round = await poller.runOnce();
  expect(round.recorded).toBe(1);
  const recorded = await events(alice.id);
  expect(recorded.map((e) => [e.trigger, (e.payload as { track: { id: string } }).track.id])).toEqual([["track_played", "new-track"]]);
  expect(recorded[0].deliveries).toHaveLength(1);
  expect(requestsOf("token-alice").at(-1)!.url.searchParams.get("after")).toBe(String(Date.parse("2026-03-01T11:00:00.000Z")));

  // Read again with nothing new: nothing more.
  clock.advance(INTERVAL_MS * 1.1);
  await poller.runOnce();
  expect(await events(alice.id)).toHaveLength(1);

  // The same track played again is a new version of the item: forwarded again.
  spotify.play("token-alice", "new-track", clock.now());
  clock.advance(INTERVAL_MS * 1.1);
  expect((await poller.runOnce()).recorded).toBe(1);
  expect((await events(alice.id)).map((e) => (e.payload as { track: { id: string } }).track.id)).toEqual(["new-track", "new-track"]);
});

test("an item the provider lists again is not forwarded twice (dedupe by id and version)", async () => {
  const poller = app.app.createPoller();
  const bob = await connect("bob", "token-bob");
  await poller.runOnce();
  clock.advance(INTERVAL_MS);
  await poller.runOnce(); // the position: nothing played yet
  const playedAt = clock.now();
  spotify.play("token-bob", "song", playedAt);
  clock.advance(INTERVAL_MS * 1.1);
  expect((await poller.runOnce()).recorded).toBe(1);
  // A lost position (a crash between recording and storing it) reads the same play again.
  await app.database.prisma.changePosition.update({ where: { connectedAccountId_reader: { connectedAccountId: bob.id, reader: "" } }, data: { cursor: JSON.stringify({ track_played: "" }) } });
  clock.advance(INTERVAL_MS * 1.1);
  expect((await poller.runOnce()).recorded).toBe(0);
  expect(await events(bob.id)).toHaveLength(1);
});

test("the same item read by two connections (one track played together, same id and time) is forwarded for each", async () => {
  const poller = app.app.createPoller();
  const [gus, hal] = [await connect("gus", "token-gus"), await connect("hal", "token-hal")];
  await poller.runOnce();
  clock.advance(INTERVAL_MS);
  await poller.runOnce(); // the positions: nothing played yet
  const playedAt = clock.now();
  spotify.play("token-gus", "jam-session", playedAt);
  spotify.play("token-hal", "jam-session", playedAt);
  clock.advance(INTERVAL_MS * 1.1);
  expect((await poller.runOnce()).recorded).toBe(2);
  for (const id of [gus.id, hal.id]) {
    const recorded = await events(id);
    expect(recorded.map((e) => (e.payload as { track: { id: string } }).track.id)).toEqual(["jam-session"]);
    expect(recorded[0].deliveries).toHaveLength(1);
  }
});

test("a connection in REAUTH_REQUIRED is not read, and leaves the schedule", async () => {
  const poller = app.app.createPoller();
  const carol = await connect("carol", "token-carol");
  await poller.runOnce();
  expect((await schedule(carol.id)).nextPollAt).not.toBeNull();
  await app.database.prisma.connectedAccount.update({ where: { id: carol.id }, data: { status: "REAUTH_REQUIRED" } });
  clock.advance(INTERVAL_MS * 1.2);
  await poller.runOnce();
  expect(requestsOf("token-carol")).toHaveLength(0);
  expect((await schedule(carol.id)).nextPollAt).toBeNull();

  // Never scheduled while it stays so.
  const dave = await connect("dave", "token-dave", "REAUTH_REQUIRED");
  await poller.runOnce();
  expect((await schedule(dave.id)).nextPollAt).toBeNull();
});

test("a token the provider refuses with 401 is refreshed once; without a refresh token the connection needs a new authorization", async () => {
  const poller = app.app.createPoller();
  const erin = await connect("erin", "token-erin");
  await poller.runOnce();
  // The provider no longer knows the token, and there is no refresh token to get another.
  await app.database.prisma.connectedAccount.update({ where: { id: erin.id }, data: { accessTokenEncrypted: app.app.box.seal("revoked") } });
  clock.advance(INTERVAL_MS * 1.2);
  await poller.runOnce();
  const row = await app.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id: erin.id } });
  expect(requestsOf("revoked")).toHaveLength(1);
  expect(row.status).toBe("REAUTH_REQUIRED");
  expect(row.nextPollAt).toBeNull();
});

test("a token that expired at the provider is refreshed after its 401, the read asked again, and the new plays forwarded", async () => {
  const poller = app.app.createPoller();
  const fay = await connect("fay", "token-fay", "ACTIVE", "refresh-fay");
  spotify.play("token-fay", "old-track", new Date(clock.now().getTime() - 3_600_000));
  await poller.runOnce(); // scheduled
  clock.advance(INTERVAL_MS * 1.2);
  await poller.runOnce(); // the first read records the position
  expect(requestsOf("token-fay")).toHaveLength(1);
  // Spotify forgets the token; its refresh token now buys another one, which has a new play.
  spotify.expire("token-fay");
  spotify.refreshesTo("refresh-fay", "token-fay-2");
  spotify.play("token-fay-2", "track-after-refresh", new Date(clock.now().getTime() + 1_000));
  clock.advance(INTERVAL_MS * 1.2);
  await poller.runOnce();

  expect(spotify.refreshes).toEqual([{ refreshToken: "refresh-fay", client: "spotify-client:spotify-secret" }]);
  expect(requestsOf("token-fay")).toHaveLength(2);
  expect(requestsOf("token-fay-2")).toHaveLength(1);
  const row = await app.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id: fay.id } });
  expect(row.status).toBe("ACTIVE");
  expect(app.app.box.open(row.accessTokenEncrypted)).toBe("token-fay-2");
  expect((await events(fay.id)).map((e) => (e.payload as { track: { id: string } }).track.id)).toEqual(["track-after-refresh"]);
});

test.skipIf(!process.env.TEST_DATABASE_URL)("two apps on one PostgreSQL database never poll one connection twice in a round", async () => {
  const config = loadConfig({ NODE_ENV: "test", PUBLIC_URL: app.url, ENCRYPTION_KEY: encryptionKey, LOG_LEVEL: "silent", CONNECTOR_SPOTIFY_API_URL: spotify.apiUrl, POLL_INTERVAL: "60s" });
  const logger = createLogger("silent");
  const database = await openDatabase({ kind: "postgresql", url: app.databaseUrl!, statementTimeoutMs: 30_000 }, logger);
  const other = buildApp({ config, logger, database, clock });
  try {
    const tokens = Array.from({ length: 40 }, (_, i) => `token-many-${i}`);
    await Promise.all(tokens.map((token, i) => connect(`many-${i}`, token)));
    const [a, b] = [app.app.createPoller(), other.createPoller()];
    await Promise.all([a.runOnce(), b.runOnce()]);
    for (let round = 0; round < 3; round++) {
      clock.advance(INTERVAL_MS * 1.1);
      const before = spotify.requests.length;
      const [ra, rb] = await Promise.all([a.runOnce(), b.runOnce()]);
      const served = spotify.requests.slice(before).filter((r) => r.token.startsWith("token-many-"));
      // Every connection read exactly once per interval, the work shared.
      expect(served.map((r) => r.token).sort()).toEqual([...tokens].sort());
      expect(ra.polled + rb.polled).toBeGreaterThanOrEqual(tokens.length);
    }
  } finally {
    await other.close();
    await database.close();
  }
});
