/**
 * The authenticated proxy: one request of the operator's server sent to a connection's provider
 * API with the connection's token, and the provider's answer streamed back unchanged.
 *
 * - Confined: the path is decoded (repeatedly) before it is judged; a `..` or `.` segment, a
 *   scheme, an authority (`//host`), a backslash or a control character is 400, and the URL built
 *   is checked to still be under the API base. The request never leaves the declared API base.
 * - Credentials: the caller's (`x-api-key`, `authorization`, `cookie`), hop-by-hop headers, `host`,
 *   `x-forwarded-*`/`forwarded` and `x-switchyard-*` are not sent on; the token goes in the
 *   connector's declared style. Answers lose hop-by-hop headers, `set-cookie` and `x-switchyard-*`.
 * - A provider redirect is returned as it is, never followed (the token never goes to another host).
 * - Refresh: before expiry (the shared refresh lock), and once after a provider 401 when the
 *   account has a refresh token and the body can be sent again.
 * - Retries (`x-switchyard-retries`, 0–5): 429, 502, 503, 504 and connection errors, waiting
 *   Retry-After, a declared rate-limit header or an exponential backoff; a wait over 30 s is not
 *   waited (the provider's answer is returned). Only a buffered body is sent twice.
 *
 * The SSRF guard does not apply: the API base is the connector's declaration (or the operator's
 * CONNECTOR_<NAME>_API_URL), never a URL a caller chooses, and the path cannot leave it.
 */
import type { IncomingHttpHeaders } from "node:http";
import { type Readable, Transform } from "node:stream";
import type { Logger } from "pino";
import { Counter, Histogram, type Registry } from "prom-client";
import type { Dispatcher } from "undici";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { createTenantHostAgent, refusedByGuard, refusedLiteral } from "../net/ssrf.ts";
import { lazyAgent, undiciTimeoutOfAtLeast } from "../net/undici.ts";
import { AppError, badInput } from "../errors.ts";
import { credentialHeader, declaredRateLimitWaitMs, withCredential } from "../connectors/api.ts";
import { type ConnectionApi, connectionApi } from "../connectors/connectionApi.ts";
import { namesTenantHost } from "../connectors/params.ts";
import type { ConnectionTokens, UsableConnection } from "./token.ts";
import { type BufferBudget, createBufferBudget } from "./bufferBudget.ts";
import type { ProxyRateLimit } from "./proxyRateLimit.ts";

export const MAX_RETRIES = 5;
/** The longest wait a Retry-After (or a declared rate-limit header) is honoured for. */
export const MAX_RETRY_WAIT_MS = 30_000;
/** With retries off, a body up to this size is still kept, so a provider 401 can be answered with a refresh and one more send. */
const REPLAYABLE_BODY_BYTES = 64 * 1024;
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/** Plain segments (letters, digits, `-`, `_`, `~`), no `%`, `.`, `:` or leading `/`: nothing to decode, nothing that could leave the API base. */
const PLAIN_PATH = /^[A-Za-z0-9_~-]+(?:\/[A-Za-z0-9_~-]+)*\/?$/;
/** A URL already known to be under the API base, as origin and path (see `target`). */
interface PlainTarget {
  origin: string;
  path: string;
}
/** A connection's api section and proxy base, with the base's href and path without a trailing `/`. */
interface ProxyRoute extends ConnectionApi {
  prefix: string;
  basePath: string;
}

/** RFC 9110 §7.6.1 and the ones every proxy drops. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"]);
/** Never sent on: the caller's credentials, what says who the caller is, and what undici sets itself. */
const NOT_SENT = new Set(["host", "x-api-key", "authorization", "cookie", "forwarded", "expect", "content-length", "x-switchyard-retries"]);

export interface ProxyDeps {
  config: Pick<Config, "env" | "publicUrl" | "connectorEnv" | "proxyTimeoutMs" | "proxyMaxBodyBytes" | "proxyBufferBudgetBytes">;
  tokens: Pick<ConnectionTokens, "findInUse" | "inUse" | "storedToken" | "token">;
  logger: Logger;
  clock: Clock;
  metrics: Registry;
  /** How a wait between attempts is waited (tests may pass a faster one). */
  sleep?: (ms: number) => Promise<void>;
  /** The first backoff wait when the provider gives none; doubled each retry. */
  retryBaseMs?: number;
  /** The per-connection limit of the deployment's Connect settings (none: no limit). */
  rateLimit?: ProxyRateLimit;
  /** The bound on bodies held to be sent again (default: one of PROXY_BUFFER_BUDGET bytes). */
  budget?: BufferBudget;
}

export interface ProxyCall {
  deploymentId: string;
  connector: string;
  account: string;
  method: string;
  /** The path after `/{account}/`, as sent (still percent-encoded). */
  path: string;
  /** The query string, with its `?`, or "". */
  search: string;
  headers: IncomingHttpHeaders;
  /** The caller's body as it arrives. */
  stream(): Readable;
  /** The caller's body buffered, within the request body bounds (413 past `limit`). */
  buffer(limit: number): Promise<Buffer>;
  retries: number;
}

export interface ProxyAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Readable;
  attempts: number;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Decoding until nothing changes (at most 3 times), every form is judged: `%252e%252e` is refused like `..`. */
export function confinePath(raw: string): string {
  let current = raw;
  for (let round = 0; round < 4; round++) {
    refuseEscape(current);
    let decoded: string;
    try {
      decoded = decodeURIComponent(current);
    } catch {
      throw badPath("is not valid percent-encoding");
    }
    if (decoded === current) return raw;
    current = decoded;
  }
  throw badPath("is encoded too many times over");
}

const badPath = (why: string) =>
  badInput(`The proxied path ${why}: it must stay under the connector's API base.`, [{ field: "path", message: why }]);

function refuseEscape(path: string): void {
  if (path.includes("\\")) throw badPath("contains a backslash");
  if (/[\u0000-\u001f\u007f#]/.test(path)) throw badPath("contains a control character or #");
  if (path.startsWith("/")) throw badPath("starts with / (an authority, //host)");
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(path)) throw badPath("starts with a scheme");
  if (path.split("/").some((segment) => segment === ".." || segment === ".")) throw badPath("has a . or .. segment");
}

/** Seconds or an HTTP date (RFC 9110 §10.2.3) → milliseconds from now; undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, nowMs: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(", ") : value);

/** Whether a header name is one a Connection header lists (hop-by-hop for this message). */
const NONE_LISTED = (_name: string) => false;
function connectionListed(headers: Record<string, string | string[] | undefined>): (name: string) => boolean {
  const value = single(headers.connection);
  if (value === undefined) return NONE_LISTED;
  // The usual one, `keep-alive` or `close`: no set to build.
  if (!value.includes(",")) {
    const only = value.trim().toLowerCase();
    return (name) => name === only;
  }
  const listed = new Set(
    value
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  return (name) => listed.has(name);
}

export function outboundHeaders(headers: IncomingHttpHeaders, base?: Record<string, string>): Record<string, string | string[]> {
  const listed = connectionListed(headers);
  const out: Record<string, string | string[]> = { ...base };
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || NOT_SENT.has(name) || listed(name)) continue;
    if (name.startsWith("x-forwarded-") || name.startsWith("x-switchyard-")) continue;
    out[name] = value;
  }
  return out;
}

export function answerHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const listed = connectionListed(headers);
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || listed(name) || name === "set-cookie" || name.startsWith("x-switchyard-")) continue;
    out[name] = value;
  }
  return out;
}

/**
 * An answer no shared cache may keep: the same path under /api/v1/proxy/ answers each deployment
 * (and each key) differently. `Cache-Control` becomes `private` — the provider's `public` and
 * `s-maxage` dropped, its other directives kept — unless it says `no-store`; `Vary` names X-Api-Key.
 */
/** The key (x-api-key, or an SDK's Authorization carrying it) decides the answer. */
const VARY = "X-Api-Key, Authorization";
export function privateAnswer(headers: Record<string, string | string[]>): void {
  const given = single(headers["cache-control"]);
  if (given === undefined || given.trim() === "") headers["cache-control"] = "private";
  else if (!/(^|,)\s*no-store\s*(,|$)/i.test(given)) {
    const kept = given
      .split(",")
      .map((directive) => directive.trim())
      .filter((directive) => directive !== "" && !/^(public|private|s-maxage\s*=.*)$/i.test(directive));
    headers["cache-control"] = ["private", ...kept].join(", ");
  }
  const vary = single(headers.vary);
  if (vary === undefined || vary.trim() === "") headers.vary = VARY;
  else if (vary.trim() !== "*" && !/(^|,)\s*x-api-key\s*(,|$)/i.test(vary)) headers.vary = `${vary}, ${VARY}`;
}

/** `url` with `from` (a base without trailing slash) swapped for `to`, when it is under `from`; else undefined. */
function underProxy(url: string, from: string, to: string): string | undefined {
  if (!url.startsWith(from)) return undefined;
  const next = url.charAt(from.length);
  if (next !== "" && next !== "/" && next !== "?" && next !== "#") return undefined;
  return `${to}${url.slice(from.length)}`;
}

/**
 * `Link` and `Location` URLs under the connection's proxy base rewritten to the same path under the
 * proxy, so an SDK that follows them (pagination, a redirect) stays inside the proxy: the account's
 * token goes with them, and the operator's key never goes to the provider. Others are left alone.
 */
export function keepInProxy(headers: Record<string, string | string[]>, base: string, proxyBase: string): void {
  const location = single(headers.location);
  if (location !== undefined) {
    const moved = underProxy(location.trim(), base, proxyBase);
    if (moved !== undefined) headers.location = moved;
  }
  const link = headers.link;
  if (link !== undefined) {
    const rewrite = (value: string) => value.replace(/<([^>]*)>/g, (whole, url: string) => {
      const moved = underProxy(url, base, proxyBase);
      return moved === undefined ? whole : `<${moved}>`;
    });
    headers.link = Array.isArray(link) ? link.map(rewrite) : rewrite(link);
  }
}

/** Passes a body on, failing it past `limit` bytes (the 413 of a streamed body). */
class ByteLimit extends Transform {
  exceeded = false;
  private seen = 0;
  constructor(private readonly limit: number) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void) {
    this.seen += chunk.length;
    if (this.seen > this.limit) {
      this.exceeded = true;
      done(new Error("request body over PROXY_MAX_BODY"));
      return;
    }
    done(null, chunk);
  }
}

const tooLarge = (limit: number) =>
  new AppError("PAYLOAD_TOO_LARGE", `The request body is larger than ${limit} bytes (PROXY_MAX_BODY).`, { headers: { connection: "close" } });

/** How long a caller refused for the buffer budget is asked to wait: held bodies go as their providers answer. */
const BUSY_RETRY_AFTER_SECONDS = 5;
const overBudget = () =>
  new AppError("SERVER_BUSY", "Too many request bodies are held for retries right now (PROXY_BUFFER_BUDGET); send this one again shortly, or without x-switchyard-retries.", {
    retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
    headers: { connection: "close" },
  });

const carriesBody = (headers: IncomingHttpHeaders) =>
  headers["transfer-encoding"] !== undefined || (headers["content-length"] !== undefined && Number(headers["content-length"]) !== 0);

const CONNECTION_ERRORS = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_CLOSED"]);
const errorCode = (error: unknown): string | undefined => {
  const own = (error as { code?: string } | null)?.code;
  return own ?? (error as { cause?: { code?: string } } | null)?.cause?.code;
};

export function createProxy(deps: ProxyDeps) {
  const { proxyTimeoutMs, proxyMaxBodyBytes } = deps.config;
  // Never sooner than PROXY_TIMEOUT (undici's coarse timers could end a wait half a second early).
  const undiciTimeout = undiciTimeoutOfAtLeast(proxyTimeoutMs);
  const sleep = deps.sleep ?? sleepFor;
  const retryBaseMs = deps.retryBaseMs ?? 250;
  const budget = deps.budget ?? createBufferBudget(deps.config.proxyBufferBudgetBytes);
  const direct = lazyAgent({ keepAliveTimeout: 10_000, connect: { timeout: proxyTimeoutMs } });
  const tenantHosts = createTenantHostAgent(proxyTimeoutMs);
  const requests = new Counter({
    name: "switchyard_proxy_requests_total",
    help: "Requests through the authenticated proxy, by connector and status class (Switchyard's own errors included)",
    labelNames: ["connector", "status_class"] as const,
    registers: [deps.metrics],
  });
  const duration = new Histogram({
    name: "switchyard_proxy_duration_seconds",
    help: "Time from a proxied request's arrival to the end of its answer, by connector",
    labelNames: ["connector"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [deps.metrics],
  });

  // Where a connection's calls go, worked out once per row read (connections are reused for a second: token.ts).
  const routes = new WeakMap<UsableConnection, ProxyRoute>();

  function routeOf(connection: UsableConnection): ProxyRoute {
    const known = routes.get(connection);
    if (known) return known;
    let route: ConnectionApi;
    try {
      route = connectionApi(connection.def, deps.config.connectorEnv, connection, { allowHttp: deps.config.env !== "production", proxied: true });
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      throw new AppError("CONFLICT", `This ${connection.def.displayName} connection cannot be proxied: ${error.message}.`);
    }
    const worked = { ...route, prefix: route.base.href.replace(/\/+$/, ""), basePath: route.base.pathname.replace(/\/+$/, "") };
    routes.set(connection, worked);
    return worked;
  }

  // prom-client hashes a label object on every call: each connector's series are looked up once
  // (bounded: the connectors are a fixed list, plus "unknown"; five status classes).
  const series = new Map<string, { observe(seconds: number): void }>();
  function seriesOf(connector: string, statusClass: number) {
    const key = `${connector} ${statusClass}`;
    let known = series.get(key);
    if (!known) {
      const counted = requests.labels({ connector, status_class: `${statusClass}xx` });
      const timed = duration.labels({ connector });
      known = {
        observe(seconds) {
          counted.inc();
          timed.observe(seconds);
        },
      };
      series.set(key, known);
    }
    return known;
  }

  const publicUrl = deps.config.publicUrl.replace(/\/+$/, "");
  /** `{PUBLIC_URL}/api/v1/proxy/{connector}/{account}`: where a caller reaches the connection's proxy base. */
  const proxyBaseOf = (call: ProxyCall) => `${publicUrl}/api/v1/proxy/${encodeURIComponent(call.connector)}/${encodeURIComponent(call.account)}`;

  /** The URL `path` names under the connection's API base. */
  function target({ api, base, prefix, basePath }: ProxyRoute, path: string, search: string): URL | PlainTarget {
    // The common case, a path of plain segments and a query without a fragment: nothing in it can be
    // decoded, normalized or resolved, so it is the URL as it is (no URL object, no decoding rounds).
    if (api.auth.style !== "query" && PLAIN_PATH.test(path) && !search.includes("#")) return { origin: base.origin, path: `${basePath}/${path}${search}` };
    const url = new URL(`${prefix}/${confinePath(path)}${search}`);
    // Belt and braces: whatever the checks above missed, a URL off the base is never sent.
    if (url.origin !== base.origin || (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`))) throw badPath("leaves the API base");
    return url;
  }

  /** One send; the answer's headers are in when it resolves (none within PROXY_TIMEOUT: 504; then as long between body chunks). */
  async function attempt(through: Dispatcher, method: string, url: URL | PlainTarget, headers: Record<string, string | string[]>, body: Buffer | Readable | undefined) {
    try {
      // The dispatcher's own request: undici's top-level request() parses the URL again and copies the options.
      return await through.request({
        origin: url.origin,
        path: url instanceof URL ? `${url.pathname}${url.search}` : url.path,
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        headersTimeout: undiciTimeout,
        bodyTimeout: undiciTimeout,
      });
    } catch (error) {
      if (errorCode(error) === "UND_ERR_HEADERS_TIMEOUT") throw new AppError("PROVIDER_TIMEOUT", `The provider did not answer within ${proxyTimeoutMs} ms (PROXY_TIMEOUT).`);
      throw error;
    }
  }

  const unreachable = (connection: UsableConnection) =>
    new AppError("PROVIDER_UNREACHABLE", `${connection.def.displayName}'s API could not be reached (connection refused, reset or not resolvable).`);

  async function send(call: ProxyCall): Promise<ProxyAnswer> {
    const connection = deps.tokens.inUse(call.deploymentId, call.connector, call.account) ?? (await deps.tokens.findInUse(call.deploymentId, call.connector, call.account));
    // Over the connection's limit: answered here, the provider not called.
    const limited = deps.rateLimit?.check(call.deploymentId, call.connector, call.account);
    if (limited) await limited;
    const route = routeOf(connection);
    const url = target(route, call.path, call.search);
    // A host the end user named (a WooCommerce store) may point anywhere: never at our own network.
    // Its calls go through the guarded agent (the address checked is the address dialled).
    const guarded = deps.config.env === "production" && namesTenantHost(connection.def.declaration.params);
    if (guarded && refusedLiteral(url instanceof URL ? url : new URL(url.origin))) throw unreachable(connection);

    const declared = call.headers["content-length"] === undefined ? undefined : Number(call.headers["content-length"]);
    if (declared !== undefined && declared > proxyMaxBodyBytes) throw tooLarge(proxyMaxBodyBytes);
    const hasBody = carriesBody(call.headers) && call.method !== "GET" && call.method !== "HEAD";
    // A body is kept (so it can be sent again) when retries are asked for, or when it is small and a
    // 401 could be refreshed — within the buffer budget, reserved before the body is read. Over it,
    // a call asking for retries is refused (503); one that did not ask is sent once, streamed.
    const wantsRetries = hasBody && call.retries > 0;
    let release = wantsRetries || (hasBody && connection.refreshable && declared !== undefined && declared <= REPLAYABLE_BODY_BYTES) ? budget.reserve(call.deploymentId, declared ?? proxyMaxBodyBytes) : undefined;
    if (wantsRetries && !release) throw overBudget();
    try {
      return await sendHeld(call, connection, route, url, await (guarded ? tenantHosts : direct).get(), hasBody, declared, release !== undefined, (bytes) => {
        // A chunked body reserved PROXY_MAX_BODY: once read, only its size stays reserved.
        if (declared !== undefined || !release) return;
        release();
        release = budget.reserve(call.deploymentId, bytes);
      });
    } finally {
      release?.();
    }
  }

  async function sendHeld(
    call: ProxyCall,
    connection: UsableConnection,
    { api, prefix }: ProxyRoute,
    url: URL | PlainTarget,
    through: Dispatcher,
    hasBody: boolean,
    declared: number | undefined,
    keep: boolean,
    held: (bytes: number) => void,
  ): Promise<ProxyAnswer> {
    const buffered = keep ? await call.buffer(proxyMaxBodyBytes) : undefined;
    if (buffered) held(buffered.length);
    const limiter = hasBody && !keep ? new ByteLimit(proxyMaxBodyBytes) : undefined;
    const replayable = !hasBody || keep;

    const headers = outboundHeaders(call.headers, api.headers);
    if (buffered) headers["content-length"] = String(buffered.length);
    else if (declared !== undefined && hasBody) headers["content-length"] = String(declared);

    let token = deps.tokens.storedToken(connection) ?? (await deps.tokens.token(connection)).accessToken;
    let refreshedAfter401 = false;
    let retriesLeft = Math.min(call.retries, MAX_RETRIES);
    let attempts = 0;
    for (;;) {
      attempts++;
      const body = buffered ?? (limiter ? call.stream().pipe(limiter) : undefined);
      // The declared headers are in `headers` already: a header credential is set on it (each attempt's token replaces the last).
      const header = credentialHeader(api, token);
      if (header) headers[header[0]] = header[1];
      const signed = header ? { url, headers } : withCredential(api, url as URL, headers, token);
      let response: Dispatcher.ResponseData;
      try {
        response = await attempt(through, call.method, signed.url, signed.headers, body);
      } catch (error) {
        if (limiter?.exceeded) throw tooLarge(proxyMaxBodyBytes);
        if (error instanceof AppError) throw error;
        if (refusedByGuard(error)) throw unreachable(connection);
        if (!CONNECTION_ERRORS.has(errorCode(error) ?? "")) {
          deps.logger.warn({ err: error, connector: connection.def.name }, "proxy request failed");
          throw unreachable(connection);
        }
        if (retriesLeft > 0 && replayable) {
          retriesLeft--;
          await sleep(backoff(attempts));
          continue;
        }
        throw unreachable(connection);
      }
      if (response.statusCode === 401 && !refreshedAfter401 && connection.refreshable && replayable) {
        refreshedAfter401 = true;
        await response.body.dump();
        token = (await deps.tokens.token(connection, { refresh: true })).accessToken;
        continue;
      }
      if (RETRYABLE_STATUS.has(response.statusCode) && retriesLeft > 0 && replayable) {
        const now = deps.clock.now().getTime();
        const asked = retryAfterMs(response.headers["retry-after"], now) ?? (response.statusCode === 429 ? declaredRateLimitWaitMs(api, response.headers, now) : undefined);
        if (asked === undefined || asked <= MAX_RETRY_WAIT_MS) {
          retriesLeft--;
          await response.body.dump();
          await sleep(asked ?? backoff(attempts));
          continue;
        }
      }
      const answered = answerHeaders(response.headers);
      privateAnswer(answered);
      if (answered.link !== undefined || answered.location !== undefined) keepInProxy(answered, prefix, proxyBaseOf(call));
      answered["x-switchyard-attempts"] = String(attempts);
      return {
        status: response.statusCode,
        headers: answered,
        body: response.body,
        attempts,
      };
    }
  }

  /** 250 ms, 500 ms, 1 s, … with up to a quarter more at random, so callers retrying together spread out. */
  function backoff(attempt: number): number {
    const wait = Math.min(MAX_RETRY_WAIT_MS, retryBaseMs * 2 ** (attempt - 1));
    return Math.round(wait * (1 + Math.random() / 4));
  }

  return {
    send,
    /** Counts and logs one proxied request once its answer has ended (or failed): method, connector, path without query, status, ms. */
    record(entry: { method: string; connector: string | undefined; path: string; status: number; startedAt: number; attempts?: number }) {
      const seconds = (performance.now() - entry.startedAt) / 1000;
      const connector = entry.connector ?? "unknown";
      seriesOf(connector, Math.floor(entry.status / 100)).observe(seconds);
      deps.logger.info(
        { method: entry.method, connector, path: entry.path, status: entry.status, ms: Math.round(seconds * 1000), attempts: entry.attempts },
        "proxy request",
      );
    },
    close: () => Promise.all([direct.close(), tenantHosts.close()]).then(() => undefined),
  };
}

export type Proxy = ReturnType<typeof createProxy>;
