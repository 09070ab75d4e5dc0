/**
 * The declared reader: one polled trigger's list endpoint (declaration.ts) → the events to forward
 * and the position to read from next. Nothing here knows a provider.
 *
 * The first read of a trigger (no stored position) only records where the account stands: the
 * history before the operator listed the trigger is not forwarded. Later reads forward every item
 * not seen before, once per (id, version), through the same recording path as webhooks.
 */
import { type ApiDeclaration, underBase, withCredential } from "../connectors/api.ts";
import { asString, valueAt } from "../connectors/json.ts";
import type { NormalizedEvent } from "../connectors/types.ts";
import { CURSOR_PLACEHOLDER, type PolledTriggerDeclaration, type PollRequestDeclaration } from "../connectors/polling.ts";
import { ProviderUnavailableError } from "../oauth/provider.ts";

/** GETs a path (with its query) under the connection's API base with the account's token; parsed JSON; throws on non-2xx. */
export type PollFetch = (pathAndQuery: string, headers: Record<string, string>) => Promise<unknown>;

const READ_TIMEOUT_MS = 15_000;

/**
 * A PollFetch for one token: the path under the connection's resolved API base
 * (connectors/connectionApi.ts), the token in the connector's declared auth style. A non-2xx answer throws
 * ProviderUnavailableError with its status (the poller refreshes once on a 401).
 */
export function apiFetch(api: ApiDeclaration, base: URL, token: string): PollFetch {
  return async (pathAndQuery, headers) => {
    const { url, headers: sent } = withCredential(api, underBase(base, pathAndQuery), { accept: "application/json", "user-agent": "Switchyard", ...headers }, token);
    const response = await fetch(url, { headers: sent as Record<string, string>, redirect: "manual", signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
    if (!response.ok) {
      await response.body?.cancel();
      // The path only: a query-style token is never in a message.
      throw new ProviderUnavailableError(`GET ${url.pathname} answered HTTP ${response.status}`, response.status);
    }
    return response.json();
  };
}

export interface PollRead {
  events: NormalizedEvent[];
  /** Where the next read starts ("" when nothing has been seen yet: the next read takes everything it lists). */
  cursor: string;
}

/** The request's path and query, `{cursor}` filled in; a parameter waiting for a position there is none of is left out. */
export function requestTarget(request: PollRequestDeclaration, cursor: string | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query)) {
    if (value.includes(CURSOR_PLACEHOLDER)) {
      if (cursor) params.set(name, value.replaceAll(CURSOR_PLACEHOLDER, cursor));
    } else params.set(name, value);
  }
  const query = params.toString();
  return query ? `${request.path}?${query}` : request.path;
}

/** Orders two versions: as times when both are, as numbers when both are, else as text. */
export function compareVersions(a: string, b: string): number {
  const [na, nb] = [Number(a), Number(b)];
  if (a.trim() !== "" && b.trim() !== "" && Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  const [ta, tb] = [Date.parse(a), Date.parse(b)];
  if (!Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
  return a < b ? -1 : a > b ? 1 : 0;
}

function itemTime(value: unknown): Date | undefined {
  if (typeof value === "number") return new Date(value > 1e11 ? value : value * 1000);
  if (typeof value !== "string") return undefined;
  const date = new Date(/^\d+$/.test(value) ? Number(value) * (Number(value) > 1e11 ? 1 : 1000) : value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const asItem = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Reads one polled trigger from `cursor` (undefined: never read before). */
export async function readPolledTrigger(
  trigger: string,
  spec: PolledTriggerDeclaration,
  cursor: string | undefined,
  fetch: PollFetch,
  now: Date,
): Promise<PollRead> {
  const first = cursor === undefined;
  if (first && spec.start) {
    const answer = await fetch(requestTarget(spec.start, undefined), spec.start.headers);
    const position = asString(valueAt(answer, spec.start.cursor));
    if (!position) throw new Error(`${spec.start.path} answered without ${spec.start.cursor}`);
    return { events: [], cursor: position };
  }
  let position = cursor || undefined;
  const events: NormalizedEvent[] = [];
  for (let page = 0; page < spec.maxPages; page++) {
    const answer = await fetch(requestTarget(spec.request, position), spec.request.headers);
    const items = spec.items === undefined ? answer : valueAt(answer, spec.items);
    if (!Array.isArray(items)) throw new Error(`${spec.request.path} answered without a list${spec.items ? ` at ${spec.items}` : ""}`);
    // In version mode only items newer than the position read from are new.
    const since = spec.cursor.from === "version" ? position : undefined;
    let newest = since;
    for (const item of items.map(asItem)) {
      const id = item && asString(valueAt(item, spec.id));
      if (!item || !id) continue;
      const version = spec.version ? asString(valueAt(item, spec.version)) : undefined;
      if (since !== undefined && (version === undefined || compareVersions(version, since) <= 0)) continue;
      if (version !== undefined && (newest === undefined || compareVersions(version, newest) > 0)) newest = version;
      events.push({
        trigger,
        externalIds: [],
        dedupeKey: `poll:${trigger}:${id}${version === undefined ? "" : `@${version}`}`,
        occurredAt: spec.occurredAt.map((path) => itemTime(valueAt(item, path))).find(Boolean) ?? now,
        data: item,
      });
    }
    if (spec.cursor.from === "version") position = newest;
    else position = spec.cursor.paths.map((path) => asString(valueAt(answer, path))).find(Boolean) ?? position;
    if (!spec.more || !asString(valueAt(answer, spec.more))) break;
  }
  return { events: first ? [] : events, cursor: position ?? "" };
}
