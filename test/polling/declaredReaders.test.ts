import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { valueAt } from "../../src/connectors/json.ts";
import { allConnectors } from "../../src/connectors/registry.ts";
import { CURSOR_PLACEHOLDER, type PolledTriggerDeclaration } from "../../src/connectors/polling.ts";
import { readPolledTrigger } from "../../src/polling/reader.ts";
import { bearerFetchJson } from "../../src/oauth/provider.ts";

const connectors = allConnectors();

/**
 * Every declared polled trigger of the catalog, read over HTTP from a fake list endpoint built from
 * its own declaration: the trigger's sample payload is the listed item, a copy with another id and a
 * newer version is the new one. The first read only records the position, the new item is forwarded
 * once, and the same list read again forwards nothing.
 */
const TOKEN = "declared-reader-token";
const now = new Date("2026-03-01T12:00:00.000Z");

/** A declared path with its per-account `{name}`s filled as the poller fills them from a connection (here: `<name>-1`). */
const withAccountValues = (spec: PolledTriggerDeclaration): PolledTriggerDeclaration => ({
  ...spec,
  request: { ...spec.request, path: spec.request.path.replace(/\{([A-Za-z][A-Za-z0-9_]*)\}/g, (_, name: string) => `${name}-1`) },
});

const polled = connectors.flatMap((c) =>
  Object.entries(c.declaration.polling?.triggers ?? {}).map(([trigger, spec]) => ({
    connector: c.name,
    trigger,
    spec: withAccountValues(spec),
    apiPath: new URL(c.endpoints.apiUrl).pathname.replace(/\/$/, ""),
    sample: c.triggers.find((t) => t.name === trigger)!.samplePayload,
  })),
);

/** A copy of `value` with `path` (dots only) set to `next`. */
function withValue(value: Record<string, unknown>, path: string, next: unknown): Record<string, unknown> {
  const [key, ...rest] = path.split(".");
  if (rest.length === 0) return { ...value, [key]: next };
  return { ...value, [key]: withValue((value[key] ?? {}) as Record<string, unknown>, rest.join("."), next) };
}

/** An id no sample uses. */
const otherId = (id: unknown) => (typeof id === "number" ? id + 1 : `${String(id)}-new`);

/** A version an hour later, in the same kind (a Unix time in s or ms, or a date text). */
function laterVersion(version: unknown): unknown {
  if (typeof version === "number") return version + (version > 1e11 ? 3_600_000 : 3_600);
  const text = String(version);
  if (/^\d+(\.\d+)?$/.test(text)) return String(Number(text) + (Number(text) > 1e11 ? 3_600_000 : 3_600));
  return new Date(Date.parse(text) + 3_600_000).toISOString();
}

/** A time as the reader reads one: a Unix time in s or ms, or a date text. */
const timeOf = (value: unknown) => new Date(typeof value === "number" ? value * (value > 1e11 ? 1 : 1000) : String(value));

/** The query parameter a declaration sends the position in, if any. */
const cursorParam = (spec: PolledTriggerDeclaration) => Object.entries(spec.request.query).find(([, v]) => v.includes(CURSOR_PLACEHOLDER))?.[0];

/** The list endpoint as the declaration describes it: items newest first, the position where it says. */
interface FakeList {
  baseUrl: string;
  items: { seq: number; item: Record<string, unknown> }[];
  requests: { url: URL; headers: IncomingMessage["headers"] }[];
  close(): Promise<void>;
}

async function startFakeList(spec: PolledTriggerDeclaration, apiPath: string): Promise<FakeList> {
  const fake: FakeList = { baseUrl: "", items: [], requests: [], close: async () => {} };
  const param = cursorParam(spec);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    fake.requests.push({ url, headers: req.headers });
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return answer(401, { error: "invalid token" });
    const newest = fake.items.reduce((max, i) => Math.max(max, i.seq), 0);
    if (spec.start && url.pathname === apiPath + spec.start.path) return answer(200, withValue({}, spec.start.cursor, `pos-${newest}`));
    if (url.pathname !== apiPath + spec.request.path) return answer(404, { error: "not found" });
    // A position the provider names itself is honoured by the provider: only later items are listed.
    const position = param ? url.searchParams.get(param) : null;
    const after = spec.cursor.from === "answer" && position?.startsWith("pos-") ? Number(position.slice(4)) : 0;
    const items = fake.items.filter((i) => i.seq > after).map((i) => i.item);
    let body: Record<string, unknown> | unknown[] = spec.items === undefined ? items : withValue({}, spec.items, items);
    if (spec.cursor.from === "answer") body = withValue(body as Record<string, unknown>, spec.cursor.paths.at(-1)!, `pos-${newest}`);
    answer(200, body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${apiPath}`;
  fake.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return fake;
}

it("the catalog declares polled triggers for at least 30 connectors", () => {
  expect(new Set(polled.map((p) => p.connector)).size).toBeGreaterThanOrEqual(30);
});

describe.each(polled.map((p) => [`${p.connector}.${p.trigger}`, p] as const))("%s", (_name, { trigger, spec, apiPath, sample }) => {
  let fake: FakeList;
  beforeAll(async () => {
    fake = await startFakeList(spec, apiPath);
  });
  afterAll(async () => {
    await fake?.close();
  });

  it("its sample payload has the declared id, version and time", () => {
    expect(valueAt(sample, spec.id)).toBeDefined();
    if (spec.version) expect(valueAt(sample, spec.version)).toBeDefined();
    for (const path of spec.occurredAt) expect(timeOf(valueAt(sample, path)).getTime()).not.toBeNaN();
  });

  it("records the position first, forwards a new item once, and a repeat not at all", async () => {
    const fetch = (target: string, headers: Record<string, string>) => bearerFetchJson(fake.baseUrl, TOKEN)(target, { headers });
    const read = (cursor: string | undefined) => readPolledTrigger(trigger, spec, cursor, fetch, now);
    const param = cursorParam(spec);
    fake.items.push({ seq: 1, item: sample });

    const first = await read(undefined);
    expect(first.events).toEqual([]);
    expect(first.cursor).not.toBe("");
    if (param) expect(fake.requests.every((r) => !r.url.searchParams.has(param))).toBe(true);

    const version = spec.version ? laterVersion(valueAt(sample, spec.version)) : undefined;
    let item = withValue(sample, spec.id, otherId(valueAt(sample, spec.id)));
    if (spec.version) item = withValue(item, spec.version, version);
    fake.items.unshift({ seq: 2, item });
    const asked = fake.requests.length;
    const second = await read(first.cursor);
    expect(second.events.map((e) => e.data)).toEqual([item]);
    expect(second.events[0].dedupeKey).toContain(String(valueAt(item, spec.id)));
    expect(second.events[0].trigger).toBe(trigger);
    if (spec.occurredAt.length > 0) expect(second.events[0].occurredAt).toEqual(timeOf(valueAt(item, spec.occurredAt[0])));
    if (param) expect(fake.requests[asked].url.searchParams.get(param)).toContain(first.cursor);
    for (const [name, value] of Object.entries(spec.request.headers)) expect(fake.requests[asked].headers[name]).toBe(value);

    const third = await read(second.cursor);
    expect(third.events).toEqual([]);
    expect(third.cursor).toBe(second.cursor);
  });
});
