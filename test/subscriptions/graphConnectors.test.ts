/**
 * Microsoft Teams, OneDrive and SharePoint on Graph subscriptions, end to end against fakes that
 * follow Graph (https://learn.microsoft.com/en-us/graph/api/subscription-post-subscriptions,
 * https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks):
 * - Teams (https://learn.microsoft.com/en-us/graph/teams-changenotifications-chatmessage): one
 *   subscription on `users/{id}/chats/getAllMessages` (`created`), made only once the
 *   validationToken request is answered; each `value[]` item names its message's resource
 *   (`chats('…')/messages('…')`), read with the account's token: one event per item.
 * - OneDrive, SharePoint (https://learn.microsoft.com/en-us/onedrive/developer/rest-api/concepts/using-webhooks,
 *   https://learn.microsoft.com/en-us/graph/api/driveitem-delta): one subscription on the drive's
 *   root (`updated` only); a notification names no item, so the drive's delta is read from the
 *   delta link taken when the subscription was made (`?token=latest`: no items, the link of now).
 *   Delta lists each changed item once, as it is now; a deleted item carries the `deleted` facet.
 * A wrong clientState is refused before anything is read; redeliveries forward nothing twice.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { exampleValues } from "../../src/connectors/params.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startFakeMicrosoftGraph, type FakeMicrosoftGraph } from "../helpers/fakeProviders/microsoftGraph.ts";
import { jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers } from "./helpers.ts";

const clock = fakeClock(new Date());
const unauthorized = jsonReply(401, { error: { code: "InvalidAuthenticationToken", message: "Access token is empty." } });
const notFound = jsonReply(404, { error: { code: "itemNotFound", message: "The resource could not be found." } });

/** Chat messages as Graph keeps them, by chat and message id (chatmessage-get). */
const messages = new Map<string, Record<string, unknown>>();
const messageReads: string[] = [];

/** A drive as its delta sees it: every change bumps the position; delta lists items changed after a position, each once, as it is now. */
function fakeDrive(root: string) {
  const items = new Map<string, { item: Record<string, unknown>; changedAt: number }>();
  const deltaReads: string[] = [];
  let position = 100;
  const change = (item: Record<string, unknown>) => items.set(String(item.id), { item, changedAt: ++position });
  return {
    root,
    deltaReads,
    items,
    create(name: string) {
      const at = clock.now().toISOString();
      const id = `01BYE5RZ${randomBytes(12).toString("hex").toUpperCase()}`;
      const item = { id, name, createdDateTime: at, lastModifiedDateTime: at, eTag: `"{${id}},1"`, cTag: `"c:{${id}},1"`, size: 10, file: { mimeType: "text/plain" }, parentReference: { path: "/drive/root:" } };
      change(item);
      return item;
    },
    update(id: string, name: string) {
      const { item } = items.get(id)!;
      const version = Number(/,(\d+)"$/.exec(String(item.eTag))![1]) + 1;
      change({ ...item, name, lastModifiedDateTime: clock.now().toISOString(), eTag: `"{${id}},${version}"`, cTag: `"c:{${id}},${version}"` });
      return items.get(id)!.item;
    },
    remove(id: string) {
      change({ id, deleted: { state: "deleted" }, parentReference: { path: "/drive/root:" } });
    },
    folder(name: string) {
      change({ id: `FOLDER${randomBytes(6).toString("hex")}`, name, folder: { childCount: 0 }, createdDateTime: clock.now().toISOString(), lastModifiedDateTime: clock.now().toISOString() });
    },
    /** GET {root}/delta[?token=…]: `latest` answers no items; a token answers what changed since (one page of 2, then the rest). */
    delta(baseUrl: string, token: string | null, skip: number) {
      deltaReads.push(token ?? "(none)");
      const link = (query: string) => `${baseUrl}/api/v1.0/${root}/delta?${query}`;
      if (token === "latest") return jsonReply(200, { value: [], "@odata.deltaLink": link(`token=${position}`) });
      if (token === null || !/^\d+$/.test(token)) return jsonReply(410, { error: { code: "resyncRequired", message: "Resync required." } });
      const changed = [...items.values()].filter((i) => i.changedAt > Number(token)).sort((a, b) => a.changedAt - b.changedAt).map((i) => i.item);
      const page = changed.slice(skip, skip + 2);
      const more = skip + 2 < changed.length;
      return jsonReply(200, { value: page, ...(more ? { "@odata.nextLink": link(`token=${token}&skip=${skip + 2}`) } : { "@odata.deltaLink": link(`token=${position}`) }) });
    },
  };
}

type Drive = ReturnType<typeof fakeDrive>;
const siteId = exampleValues(findConnector("sharepoint")!.declaration.params).site_id;
const drives: Record<"onedrive" | "sharepoint", Drive> = { onedrive: fakeDrive("me/drive/root"), sharepoint: fakeDrive(`sites/${siteId}/drive/root`) };
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const fakes = {} as Record<"microsoft_teams" | "onedrive" | "sharepoint", FakeMicrosoftGraph>;
let app: TestApp;
let ada: Operator;
const accounts: Record<string, string> = {};

beforeAll(async () => {
  fakes.microsoft_teams = await startFakeMicrosoftGraph({
    clock,
    connector: "microsoft_teams",
    routes: [
      {
        method: "GET",
        path: /^\/api\/v1\.0\/chats\('([^']+)'\)\/messages\('([^']+)'\)$/,
        handle(req, ctx, [chat, id]) {
          if (!ctx.authenticate(req)) return unauthorized;
          messageReads.push(`${chat}/${id}`);
          return messages.has(`${chat}/${id}`) ? jsonReply(200, messages.get(`${chat}/${id}`)) : notFound;
        },
      },
    ],
  });
  for (const name of ["onedrive", "sharepoint"] as const) {
    const drive = drives[name];
    fakes[name] = await startFakeMicrosoftGraph({
      clock,
      connector: name,
      routes: [
        {
          method: "GET",
          path: new RegExp(`^/api/v1\\.0/${escape(drive.root)}/delta$`),
          handle(req, ctx) {
            if (!ctx.authenticate(req)) return unauthorized;
            return drive.delta(ctx.baseUrl, req.query.get("token"), Number(req.query.get("skip") ?? 0));
          },
        },
      ],
    });
  }
  app = await startTestApp(Object.assign({}, ...Object.values(fakes).map((f) => f.env())), { clock });
  ada = await createOperator(app);
  const triggers = (["microsoft_teams", "onedrive", "sharepoint"] as const).flatMap((connector) => findConnector(connector)!.triggers.map((t) => ({ connector, trigger: t.name })));
  await listTriggers(app, ada, triggers);
  for (const [connector, provider] of Object.entries(fakes)) accounts[connector] = (await connectAccount(app, ada, { connector, account: "alice", provider })).id;
  await app.app.subscriptions.runOnce(true);
}, 180_000);

afterAll(async () => {
  await app?.close();
  await Promise.all(Object.values(fakes).map((f) => f?.close()));
});

const eventsOf = (connector: string) => storedEvents(app, ada, connector);
const notify = (fake: FakeMicrosoftGraph, items: Array<Record<string, unknown>>) => {
  const [sub] = fake.live();
  return fake.post(sub.notificationUrl, { value: items.map((item) => ({ subscriptionId: sub.id, subscriptionExpirationDateTime: sub.expirationDateTime, clientState: sub.clientState, tenantId: "9f4ebab6-520d-49c0-85cc-7b25c78d4a93", ...item })) });
};

describe("Microsoft Teams", () => {
  const fake = () => fakes.microsoft_teams;
  const chat = "19:8ea0e38b-efb3-4757-924a-5f94061cf8c2_97f62344-57dc-409c-88ad-c4af14158ff5@unq.gbl.spaces";
  const post = (content: string) => {
    const id = String(Date.now() + messages.size);
    const message = { id, etag: id, messageType: "message", chatId: chat, createdDateTime: clock.now().toISOString(), lastModifiedDateTime: clock.now().toISOString(), body: { contentType: "text", content } };
    messages.set(`${chat}/${id}`, message);
    const resource = `chats('${chat}')/messages('${id}')`;
    return { changeType: "created", resource, resourceData: { id, "@odata.type": "#Microsoft.Graph.chatMessage", "@odata.id": resource } };
  };

  test("one subscription on the user's chats, made after Graph's validationToken request was answered as text/plain", async () => {
    expect(fake().live()).toHaveLength(1);
    const [sub] = fake().live();
    expect(sub).toMatchObject({ resource: `users/microsoft_teams-user-1/chats/getAllMessages`, changeType: "created", notificationUrl: `${app.url}/webhooks/${ada.deploymentId}/microsoft_teams` });
    // Both the notification URL and the lifecycle notification URL (the same one) are validated.
    expect(sub.lifecycleNotificationUrl).toBe(sub.notificationUrl);
    expect(fake().validations).toEqual([0, 1].map(() => expect.objectContaining({ status: 200, contentType: expect.stringMatching(/^text\/plain/) })));
    for (const v of fake().validations) expect(v.body).toBe(v.token);
    // Chat-message subscriptions over an hour need lifecycle notifications: under an hour is still asked for.
    expect(Date.parse(sub.expirationDateTime) - clock.now().getTime()).toBeLessThanOrEqual(60 * 60_000);
    expect((await accountSubscriptions(app, ada, accounts.microsoft_teams)).map((s) => s.status)).toEqual(["ACTIVE"]);
  });

  test("one notification with two messages is two message_posted events, each read at its resource; a redelivery adds none", async () => {
    const items = [post("Hello, can we meet at 3?"), post("Sure")];
    expect(await notify(fake(), items)).toBe(202);
    const events = await eventsOf("microsoft_teams");
    expect(events.map((e) => (e.payload as { body: { content: string } }).body.content).sort()).toEqual(["Hello, can we meet at 3?", "Sure"]);
    expect(events.every((e) => e.trigger === "message_posted" && e.account === "alice")).toBe(true);
    expect(messageReads).toHaveLength(2);
    const last = fake().sent[fake().sent.length - 1];
    expect(await fake().post(last.url, last.body)).toBe(202);
    expect(await eventsOf("microsoft_teams")).toHaveLength(2);
  });

  test("a wrong or missing clientState is refused and nothing is read", async () => {
    const [sub] = fake().live();
    const reads = messageReads.length;
    const item = post("forged");
    for (const clientState of ["forged", undefined]) {
      const response = await fetch(sub.notificationUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ value: [{ ...item, subscriptionId: sub.id, clientState }] }) });
      expect(response.status).toBe(401);
    }
    expect(messageReads.length).toBe(reads);
    expect(await eventsOf("microsoft_teams")).toHaveLength(2);
  });
});

describe.each(["onedrive", "sharepoint"] as const)("%s", (name) => {
  const fake = () => fakes[name];
  const drive = drives[name];
  const changed = () => notify(fake(), [{ changeType: "updated", resource: drive.root }]);
  const triggersOf = async () => (await eventsOf(name)).map((e) => [e.trigger, (e.payload as { name?: string; id: string }).name ?? (e.payload as { id: string }).id]);

  test("one subscription on the drive's root (updated), its delta position taken when it was made", async () => {
    expect(await accountSubscriptions(app, ada, accounts[name])).toMatchObject([{ lastError: null }]);
    expect(fake().live().map((s) => [s.resource, s.changeType])).toEqual([[drive.root, "updated"]]);
    expect(drive.deltaReads).toEqual(["latest"]);
    expect((await accountSubscriptions(app, ada, accounts[name])).map((s) => s.status)).toEqual(["ACTIVE"]);
  });

  test("the first notification's change is forwarded: a file created after the subscription is file_created", async () => {
    drive.create("Quarterly report.docx");
    expect(await changed()).toBe(202);
    expect(await triggersOf()).toEqual([["file_created", "Quarterly report.docx"]]);
    expect((await eventsOf(name))[0].account).toBe("alice");
  });

  test("updates, deletes and new files across delta pages are forwarded once each; folders are not; redeliveries add nothing", async () => {
    const first = [...drive.items.values()][0].item;
    clock.advance(60_000);
    drive.update(String(first.id), "Quarterly report (final).docx");
    const notes = drive.create("notes.txt");
    drive.folder("Archive");
    drive.remove(String(notes.id));
    drive.create("budget.xlsx");
    // Graph may send several notifications for one burst of changes; the second reads nothing new.
    expect(await changed()).toBe(202);
    expect(await changed()).toBe(202);
    const last = fake().sent[fake().sent.length - 1];
    expect(await fake().post(last.url, last.body)).toBe(202);
    // Delta lists each item once as it is now: notes.txt, created and deleted since the last read, is only its deletion.
    expect((await triggersOf()).sort()).toEqual(
      [
        ["file_created", "Quarterly report.docx"],
        ["file_updated", "Quarterly report (final).docx"],
        ["file_deleted", String(notes.id)],
        ["file_created", "budget.xlsx"],
      ].sort(),
    );
  });

  test("the same item state read again (an overlapping delta read) is not forwarded twice: events are deduplicated by id and eTag", async () => {
    const before = (await eventsOf(name)).length;
    const [sub] = await accountSubscriptions(app, ada, accounts[name]);
    // Rewind the stored position, as a crash between storing events and moving the cursor would leave it.
    await app.database.prisma.changePosition.update({
      where: { connectedAccountId_reader: { connectedAccountId: accounts[name], reader: sub.id } },
      data: { cursor: `${fake().url}/api/v1.0/${drive.root}/delta?token=100` },
    });
    expect(await changed()).toBe(202);
    expect(await eventsOf(name)).toHaveLength(before);
  });

  test("a wrong clientState is refused and the drive is not read", async () => {
    const [sub] = fake().live();
    const reads = drive.deltaReads.length;
    const response = await fetch(sub.notificationUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ value: [{ subscriptionId: sub.id, clientState: "forged", changeType: "updated", resource: drive.root }] }) });
    expect(response.status).toBe(401);
    expect(drive.deltaReads.length).toBe(reads);
  });

  test("a missed lifecycle notification reads the drive's delta from where reading stopped", async () => {
    clock.advance(60_000);
    drive.create("missed.docx");
    const reads = drive.deltaReads.length;
    const [sub] = fake().live();
    expect(await fake().lifecycle(sub.id, "missed")).toBe(202);
    expect(drive.deltaReads.length).toBeGreaterThan(reads);
    expect(await triggersOf()).toContainEqual(["file_created", "missed.docx"]);
  });

  test("disconnecting deletes the Graph subscription", async () => {
    await disconnect(app, ada, accounts[name]);
    expect(fake().live()).toHaveLength(0);
    expect(fake().subscriptions.every((s) => s.deleted)).toBe(true);
  });
});
