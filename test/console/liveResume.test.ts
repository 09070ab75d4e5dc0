import type { Page, WebSocketRoute } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { type ConsoleStory, startConsoleStory } from "../helpers/consoleStory.ts";
import { SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import type { Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, type TestApp } from "../helpers/testApp.ts";
import { screenshotIfFailed } from "./browser.ts";

/**
 * The console's live events after its websocket drops: the server side closes the socket, events are
 * accepted while the console cannot reconnect, and once it can, it subscribes again with `after` =
 * the last event it saw — so the events of the gap are replayed and the Events page shows them all.
 * The socket goes through the browser's WebSocket routing, which lets the test cut it and hold the
 * reconnection; the service behind it is the real one.
 */
let receiver: Receiver;
let story: ConsoleStory;
let app: TestApp;
let page: Page;
let ada: Operator;

/** Sockets the page has open (through the route), and what the page sent on them. */
const sockets: Array<{ page: WebSocketRoute; server: WebSocketRoute }> = [];
const subscribes: Array<{ query: string; variables: Record<string, unknown> }> = [];
/** Sent by the server: forwardedEvents ids, in order. */
const seen: string[] = [];
/** While true, a reconnecting socket is closed at once (the console retries, as against a restarting server). */
let gap = false;
const connections: string[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  story = await startConsoleStory({ app: { worker: true }, viewport: { width: 1280, height: 900 }, timeoutMs: 30_000 });
  ({ app, operator: ada, page } = story);
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/ok`, triggers: [] } }, { token: ada.token }));
  await page.routeWebSocket(/\/graphql/, async (ws) => {
    connections.push(gap ? "refused" : "open");
    if (gap) return ws.close({ code: 1012, reason: "restarting" });
    const server = ws.connectToServer();
    sockets.push({ page: ws, server });
    ws.onMessage((message) => {
      const parsed = JSON.parse(String(message));
      if (parsed.type === "subscribe") subscribes.push(parsed.payload);
      server.send(message);
    });
    server.onMessage((message) => {
      const parsed = JSON.parse(String(message));
      const id = parsed.type === "next" ? parsed.payload?.data?.forwardedEvents?.id : undefined;
      if (id) seen.push(id);
      ws.send(message);
    });
  });
}, 180_000);
afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page);
});
afterAll(async () => {
  await story?.close();
  await receiver?.close();
});

const sendTest = async () =>
  ok(await app.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { apiKey: ada.apiKey })).sendTestEvent.id;
const rowOf = (eventId: string) => page.getByRole("table", { name: "Events" }).locator(`tr[data-event-id="${eventId}"]`);

async function until(condition: () => boolean, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the console's live events", () => {
  // Skipped: unfinished. After the routed socket is closed (code 1012, page side), no reconnection
  // reaches the route within 60 s (connections: "open" only), so it is not yet known whether the
  // page never sees the close through Playwright's routing or the console does not reconnect.
  test.skip("after the websocket drops, they resume after the last event seen: every event of the gap is shown", async () => {
    await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/events`);
    await page.getByTestId("live-state").getByText("Live").waitFor();
    const before = await sendTest();
    await until(() => seen.includes(before), "the first event live");
    await rowOf(before).waitFor();

    // The server side drops the socket; the console's reconnections are refused until the gap ends.
    gap = true;
    const subscribedBefore = subscribes.length;
    for (const socket of sockets.splice(0)) await socket.page.close({ code: 1012, reason: "restarting" });
    const during = [await sendTest(), await sendTest(), await sendTest()];
    gap = false;

    await until(() => during.every((id) => seen.includes(id)), `the events of the gap, replayed (connections: ${connections.join(", ")})`);
    const resubscribed = subscribes.slice(subscribedBefore).filter((payload) => payload.query.includes("forwardedEvents"));
    expect(resubscribed.length).toBeGreaterThan(0);
    for (const payload of resubscribed) expect(payload.variables.after).toBe(before);
    for (const id of during) await rowOf(id).waitFor();
  });
});
