import type { Socket } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { type ConsoleStory, startConsoleStory } from "../helpers/consoleStory.ts";
import { SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { graphql } from "../generated/gql.ts";
import { createOperator, joinByInvitation, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, type TestApp } from "../helpers/testApp.ts";
import { scaled } from "../helpers/timing.ts";
import { screenshotIfFailed } from "./browser.ts";

/**
 * The console's live events after its websocket drops: the service drops the socket (its TCP
 * connection destroyed, as a crash or a balancer would), events are accepted while the console's
 * reconnections are refused, and once one is let through, the console subscribes again with `after`
 * = the last event it saw, so the events of the gap are replayed and the Events page shows each
 * one, once. Nothing sits between the browser and the service: the test only wraps the service's
 * own `upgrade` handler to keep hold of the sockets and to refuse upgrades during the gap; what
 * the page sent is read from the browser's own record of its websocket frames. And when the
 * subscriptions end while the socket stays up (the viewer lost access), the marker stops saying Live.
 */
const LiveRemoveMember = graphql(`
  mutation LiveResumeRemoveMember($organizationId: ID!, $userId: ID!) { removeMember(organizationId: $organizationId, userId: $userId) }
`);

let receiver: Receiver;
let story: ConsoleStory;
let app: TestApp;
let page: Page;
let ada: Operator;

/** The upgraded sockets the service holds open. */
const open = new Set<Socket>();
/** While true, an upgrade is answered 503 (the console retries, as against a restarting server). */
let gap = false;
let refused = 0;
/** forwardedEvents subscribe payloads the page sent, in order. */
const subscribes: Array<{ variables?: Record<string, unknown> }> = [];
/** forwardedEvents ids the page received, in order. */
const seen: string[] = [];
/** Ids of the operations (of any subscription) the page has subscribed and not completed. */
const pageOperations = new Set<string>();

beforeAll(async () => {
  receiver = await startReceiver();
  story = await startConsoleStory({ app: { worker: true }, viewport: { width: 1280, height: 900 }, timeoutMs: scaled(30_000) });
  ({ app, operator: ada, page } = story);
  const serviceUpgrade = app.server.listeners("upgrade") as Array<(...args: unknown[]) => void>;
  app.server.removeAllListeners("upgrade");
  app.server.on("upgrade", (request, socket: Socket, head) => {
    if (gap) {
      refused++;
      socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    open.add(socket);
    socket.once("close", () => open.delete(socket));
    for (const listener of serviceUpgrade) listener.call(app.server, request, socket, head);
  });
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/ok`, triggers: [] } }, { token: ada.token }));
  page.on("websocket", (socket) => {
    socket.on("framesent", ({ payload }) => {
      const message = JSON.parse(String(payload));
      if (message.type === "subscribe") pageOperations.add(message.id);
      if (message.type === "complete") pageOperations.delete(message.id);
      if (message.type === "subscribe" && String(message.payload?.query).includes("forwardedEvents")) subscribes.push(message.payload);
    });
    socket.on("framereceived", ({ payload }) => {
      const id = JSON.parse(String(payload)).payload?.data?.forwardedEvents?.id;
      if (typeof id === "string") seen.push(id);
    });
  });
}, scaled(180_000));
afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page);
});
afterAll(async () => {
  for (const socket of open) socket.destroy();
  await story?.close();
  await receiver?.close();
});

const sendTest = async () =>
  ok(await app.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { apiKey: ada.apiKey })).sendTestEvent.id;
const rowOf = (eventId: string) => page.getByRole("table", { name: "Events" }).locator(`tr[data-event-id="${eventId}"]`);

async function until(condition: () => boolean, what: string, timeoutMs = scaled(60_000)) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the console's live events", () => {
  test("after the websocket drops, they resume after the last event seen: every event of the gap is shown, once", async () => {
    await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/events`);
    await page.getByTestId("live-state").getByText("Live").waitFor();
    // "Live" is the socket's state; the service starts listening a moment after each subscribe
    // frame. An event sent before that is not live (the page would show it once it is delivered).
    await until(() => subscribes.length > 0 && app.app.bus.activeSubscriptions() === pageOperations.size, "the service to listen for each of the page's subscriptions");
    const before = await sendTest();
    await until(() => seen.includes(before), "the first event live");
    await rowOf(before).waitFor();

    // The service drops the socket; the console's reconnections are refused until the gap ends.
    gap = true;
    const subscribedBefore = subscribes.length;
    for (const socket of open) socket.destroy();
    await page.getByTestId("live-state").getByText("Live").waitFor({ state: "detached" });
    const during = [await sendTest(), await sendTest(), await sendTest()];
    await until(() => refused > 0, "the console to try to reconnect during the gap");
    gap = false;

    await until(() => during.every((id) => seen.includes(id)), "the events of the gap, replayed");
    const resubscribed = subscribes.slice(subscribedBefore);
    expect(resubscribed.length).toBeGreaterThan(0);
    for (const payload of resubscribed) expect(payload.variables?.after).toBe(before);
    // Each event is received once and shown in one row.
    expect(seen).toEqual([before, ...during]);
    for (const id of [before, ...during]) await expect.poll(() => rowOf(id).count()).toBe(1);
    await page.getByTestId("live-state").getByText("Live").waitFor();

    // And it goes on live after the replay.
    const after = await sendTest();
    await rowOf(after).waitFor();
    expect(seen).toEqual([before, ...during, after]);
  });

  test("when the caller loses access its subscriptions stop with the socket still up, and the marker says Stopped, not Live", async () => {
    const bob = await createOperator(app, "Bob");
    await joinByInvitation(app.gql, ada.token, ada.organizationId, bob);
    const bobPage = await story.newPage({ as: bob });
    try {
      await bobPage.goto(`${app.url}/console/deployments/${ada.deploymentId}/events`);
      await bobPage.getByTestId("live-state").getByText("Live").waitFor();
      ok(await app.gql(LiveRemoveMember, { organizationId: ada.organizationId, userId: bob.userId }, { token: ada.token }));
      await bobPage.getByRole("alert").getByText("Live updates stopped", { exact: false }).waitFor();
      await bobPage.getByTestId("live-state").getByText("Stopped").waitFor();
      expect(await bobPage.getByTestId("live-state").textContent()).toBe("Stopped");
    } finally {
      await bobPage.context().close();
    }
  });
});
