import { expect, test } from "vitest";
import { entriesToEvents } from "../../src/connectors/providers/dropbox/events.ts";
import { historyToEvents, withMessageMetadata } from "../../src/connectors/providers/gmail/events.ts";
import { occurredAt } from "../../src/connectors/providers/microsoft/changes.ts";

// A change reader dates an event by the provider's time when it is readable and in range, and
// otherwise leaves the date out: the event is then dated when its notification came, or when it
// was read (src/forwarding/inbound.ts), as a webhook's event is.

test("a Graph item is dated by lastModifiedDateTime, else receivedDateTime; nothing readable or in range leaves it undated", () => {
  expect(occurredAt({ lastModifiedDateTime: "2026-11-02T08:30:00Z", receivedDateTime: "2026-11-01T00:00:00Z" })).toEqual(new Date("2026-11-02T08:30:00Z"));
  expect(occurredAt({ receivedDateTime: "2026-11-01T00:00:00Z" })).toEqual(new Date("2026-11-01T00:00:00Z"));
  // Before 1970 or past 9999, or not a date at all: not the event's time.
  expect(occurredAt({ lastModifiedDateTime: "0001-01-01T00:00:00Z" })).toBeUndefined();
  expect(occurredAt({ lastModifiedDateTime: "not a date" })).toBeUndefined();
  expect(occurredAt({})).toBeUndefined();
});

test("a Dropbox entry is dated by server_modified, else by the notification's time when there was one", () => {
  const file = { ".tag": "file", id: "id:a4ayc_80_OEAAAAAAAAAXw", name: "Prime_Numbers.txt", path_lower: "/homework/math/prime_numbers.txt", rev: "a1c10ce0dd78" };
  const notifiedAt = new Date("2026-11-29T19:00:00Z");
  const [dated] = entriesToEvents([{ ...file, server_modified: "2026-11-28T10:00:00Z" }], "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc", "cursor", notifiedAt);
  expect(dated.occurredAt).toEqual(new Date("2026-11-28T10:00:00Z"));
  const [undated] = entriesToEvents([{ ...file, server_modified: "1e20" }], "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc", "cursor", notifiedAt);
  expect(undated.occurredAt).toEqual(notifiedAt);
  const [polled] = entriesToEvents([{ ...file, server_modified: "1e20" }], "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc", "cursor");
  expect(polled.occurredAt).toBeUndefined();
});

test("a Gmail message is dated by its internalDate (epoch ms), else by the notification's time when it is out of range", () => {
  const notifiedAt = new Date("2026-11-29T19:00:00Z");
  const [event] = historyToEvents({ history: [{ id: "1", messagesAdded: [{ message: { id: "m", threadId: "t", labelIds: ["INBOX"] } }] }] }, "a@b.c", notifiedAt);
  expect(withMessageMetadata(event, { id: "m", internalDate: "1764410400000" }).occurredAt).toEqual(new Date(1764410400000));
  expect(withMessageMetadata(event, { id: "m", internalDate: "99999999999999999999" }).occurredAt).toEqual(notifiedAt);
  expect(withMessageMetadata(event, { id: "m" }).occurredAt).toEqual(notifiedAt);
});
