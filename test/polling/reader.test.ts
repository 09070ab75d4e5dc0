import { expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { readPolledTrigger } from "../../src/polling/reader.ts";

/** The declared readers of the catalog, against answers shaped as each provider documents them. */
const now = new Date("2026-03-01T12:00:00.000Z");
const spec = (connector: string, trigger: string) => findConnector(connector)!.declaration.polling!.triggers[trigger];

test("Drive: the first read takes the start page token; later reads follow nextPageToken to newStartPageToken", async () => {
  const drive = spec("google_drive", "file_changed");
  const asked: string[] = [];
  const pages: Record<string, unknown> = {
    "/drive/v3/changes/startPageToken": { kind: "drive#startPageToken", startPageToken: "100" },
    "100": { nextPageToken: "101", changes: [{ fileId: "a", time: "2026-03-01T11:00:00.000Z", removed: false }] },
    "101": { newStartPageToken: "102", changes: [{ fileId: "b", time: "2026-03-01T11:30:00.000Z", removed: true }] },
  };
  const fetch = async (target: string) => {
    asked.push(target);
    const url = new URL(target, "http://x");
    return pages[url.searchParams.get("pageToken") ?? url.pathname];
  };
  expect(await readPolledTrigger("file_changed", drive, undefined, fetch, now)).toEqual({ events: [], cursor: "100" });
  const read = await readPolledTrigger("file_changed", drive, "100", fetch, now);
  expect(read.cursor).toBe("102");
  expect(read.events.map((e) => [e.dedupeKey, e.occurredAt?.toISOString()])).toEqual([
    ["poll:file_changed:a@2026-03-01T11:00:00.000Z", "2026-03-01T11:00:00.000Z"],
    ["poll:file_changed:b@2026-03-01T11:30:00.000Z", "2026-03-01T11:30:00.000Z"],
  ]);
  expect(asked.slice(1).every((target) => target.startsWith("/drive/v3/changes?pageToken="))).toBe(true);
});

test("GitHub stars: newest first, the position is the newest star time, older stars are never forwarded", async () => {
  const stars = spec("github", "repository_starred");
  let list = [{ starred_at: "2026-02-01T00:00:00Z", repo: { id: 1 } }];
  const headers: Record<string, string>[] = [];
  const fetch = async (_target: string, h: Record<string, string>) => (headers.push(h), list);
  const first = await readPolledTrigger("repository_starred", stars, undefined, fetch, now);
  expect(first).toEqual({ events: [], cursor: "2026-02-01T00:00:00Z" });
  list = [{ starred_at: "2026-03-01T10:00:00Z", repo: { id: 2 } }, ...list];
  const second = await readPolledTrigger("repository_starred", stars, first.cursor, fetch, now);
  expect(second.events.map((e) => e.dedupeKey)).toEqual(["poll:repository_starred:2@2026-03-01T10:00:00Z"]);
  expect(second.cursor).toBe("2026-03-01T10:00:00Z");
  expect(headers[0].accept).toBe("application/vnd.github.star+json");
});

test("a list answer without the declared list is an error, not an empty read", async () => {
  await expect(readPolledTrigger("track_played", spec("spotify", "track_played"), "", async () => ({ error: "x" }), now)).rejects.toThrow(/without a list at items/);
});
