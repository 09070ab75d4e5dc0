/**
 * The `api` section of a connector declaration: the provider API's base URL, and how the
 * authenticated proxy calls that API with a connection's token. Unless declared otherwise, the token
 * goes in `Authorization: Bearer …` to `api.baseUrl` (with its CONNECTOR_<NAME>_API_URL override). What a provider does
 * differently is declared here and read by everything that calls a provider with an account's
 * token — the proxy (src/connections/proxy.ts), the poller (src/polling/) and the subscription
 * manager (src/subscriptions/); no code branches on a name.
 */
import * as z from "zod";
import { headerName, jsonPath } from "./fields.ts";
import { valueAt } from "./json.ts";


const authSchema = z.discriminatedUnion("style", [
  /** `Authorization: Bearer <token>` (RFC 6750 §2.1): most providers. */
  z.object({ style: z.literal("bearer") }).strict(),
  /** `<header>: <prefix><token>`, e.g. `Authorization: <token>` with no prefix. */
  z.object({ style: z.literal("header"), header: headerName, prefix: z.string().default("") }).strict(),
  /** `?<param>=<token>` on the URL. */
  z.object({ style: z.literal("query"), param: z.string().regex(/^[A-Za-z0-9_.-]+$/, "must be a plain query parameter name") }).strict(),
  /** `Authorization: Basic <token>` (RFC 7617): authMode BASIC, whose stored credential is `base64(user:password)`. */
  z.object({ style: z.literal("basic") }).strict(),
]);

/** A header the provider sends on 429 (or a rate-limited 403) that says when to try again. */
const rateLimitHeaderSchema = z
  .object({
    header: headerName,
    /** `seconds`: how long to wait; `epoch_seconds`: the Unix time the limit resets. */
    value: z.enum(["seconds", "epoch_seconds"]),
  })
  .strict();

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

export const apiSchema = z
  .object({
    auth: authSchema.default({ style: "bearer" }),
    /**
     * The provider API's base URL, the one place a declaration names it (required unless authMode
     * NONE): the identity read, installation tokens, change reads and the credential check go under
     * it, and so does every call with a connection's token unless `connectionBaseUrl` says
     * otherwise. Overridable with CONNECTOR_<NAME>_API_URL. May name connection params in its host
     * (OAuth) or non-secret credential fields (API_KEY, BASIC); checked with the declaration.
     */
    baseUrl: z.string().optional(),
    /**
     * Where one connection's calls go when not `baseUrl` itself: an https URL, or a template whose
     * `{name}`s are filled per connection — `{baseUrl}` is the (overridable) `baseUrl`; any other
     * name is the connection's `params[name]`, else the metadata path declared in `placeholders`.
     * `{baseUrl}/ex/jira/{cloudId}`, `{instanceUrl}`, `{apiEndpoint}/3.0`, `https://{dc}.example.com`.
     */
    connectionBaseUrl: z.string().optional(),
    /**
     * Where the proxy sends a connection's calls when not where its declared reads go: the base URL
     * the provider's official SDK is configured with, on a host of that API's own (Google Sheets'
     * `https://sheets.googleapis.com`, whose polled changes are Drive's on www.googleapis.com). A
     * template as `connectionBaseUrl`.
     */
    proxyBaseUrl: z.string().optional(),
    /**
     * The connection's placeholders, one mapping for every call with its token: name → where in the
     * connection's metadata its value is, when no param of that name gives it. The API base and
     * polled paths fall back to the metadata member of the name itself; a subscription's calls fill
     * only the names declared here, since their templates also hold names that are not the
     * connection's ({secret}, {events}): a subscription's `{organization}` is declared even where
     * its path is its own name. A connection without the value cannot make the call: it fails and says so.
     */
    placeholders: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/), jsonPath).default({}),
    /** Headers every proxied request carries unless the caller sends its own (a required API version). */
    headers: z.record(headerName, z.string()).default({}),
    /** Where a 429 without Retry-After says when to try again. */
    rateLimitHeaders: z.array(rateLimitHeaderSchema).default([]),
  })
  .strict()
  .superRefine((api, ctx) => {
    for (const field of ["connectionBaseUrl", "proxyBaseUrl"] as const) {
      const template = api[field];
      if (!template) continue;
      const probe = template.replace(PLACEHOLDER, (_, name: string) => (name === "baseUrl" || template.startsWith(`{${name}}`) ? "https://x.example" : "x"));
      let url: URL;
      try {
        url = new URL(probe);
      } catch {
        ctx.addIssue({ code: "custom", path: [field], message: "must be an https URL or a template of one" });
        continue;
      }
      if (url.protocol !== "https:") ctx.addIssue({ code: "custom", path: [field], message: "must be an https URL" });
      if (url.search || url.hash) ctx.addIssue({ code: "custom", path: [field], message: "must not have a query or a fragment" });
    }
  });

export type ApiDeclaration = z.output<typeof apiSchema>;

const DEFAULT_API: ApiDeclaration = { auth: { style: "bearer" }, placeholders: {}, headers: {}, rateLimitHeaders: [] };

/** A connector's api section, defaults filled in. */
export const apiOf = (declaration: { api?: ApiDeclaration }): ApiDeclaration => declaration.api ?? DEFAULT_API;

/** A label of a host name or a path segment: what a tenant's value may be (no dots, slashes or escapes). */
const SAFE_LABEL = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/** Why a connection has no usable API base: a missing or unsafe value (the proxy's 409/400). */
export class ApiBaseError extends Error {}

/**
 * A connection's value for a declared placeholder: its connection params first (`params[name]` on
 * the auth-url), else its identity metadata at `metadataPath`; undefined when neither has one.
 */
export function connectionValue(connection: { params: unknown; metadata: unknown }, name: string, metadataPath: string): string | undefined {
  const params = connection.params !== null && typeof connection.params === "object" ? (connection.params as Record<string, unknown>) : {};
  const raw = params[name] ?? valueAt(connection.metadata, metadataPath);
  return typeof raw === "string" || typeof raw === "number" ? String(raw) : undefined;
}

/**
 * The API base of one connection: the template with its placeholders filled. A value that fills a
 * part of a URL must be a single hostname label or path segment (letters, digits, `_`, `-`); a
 * value that starts the base (`{instanceUrl}`) must be an https URL without user or password
 * (http too when `allowHttp`: development and tests), of which only the origin is used.
 */
export function resolveApiBase(
  api: ApiDeclaration,
  baseUrl: string,
  connection: { params: unknown; metadata: unknown },
  options: { allowHttp: boolean; apiUrlOverridden?: boolean },
): URL {
  const declared = api.connectionBaseUrl ?? "{baseUrl}";
  // With CONNECTOR_<NAME>_API_URL set, the API is there (a fake provider, an egress proxy): a base on
  // a declared host of its own (QuickBooks', Zoho's) keeps only its path under it. A base the
  // provider's own answer names (`{instanceUrl}`) is the provider's word and stays as it is.
  const template = options.apiUrlOverridden ? declared.replace(/^https:\/\/[^/]+/, "{baseUrl}") : declared;
  const lookup = (name: string): string => {
    if (name === "baseUrl") return baseUrl;
    const value = connectionValue(connection, name, api.placeholders[name] ?? name);
    if (value === undefined) throw new ApiBaseError(`the connection has no ${name} to call its API with`);
    return value;
  };
  const whole = /^\{([A-Za-z][A-Za-z0-9_]*)\}(\/.*)?$/.exec(template);
  let filled: string;
  if (whole && whole[1] !== "baseUrl") {
    let url: URL;
    try {
      url = new URL(lookup(whole[1]));
    } catch {
      throw new ApiBaseError(`the connection's ${whole[1]} is not a URL`);
    }
    // Only the origin is taken (Salesforce's userinfo gives its REST URL with a path).
    if (!(url.protocol === "https:" || (options.allowHttp && url.protocol === "http:")) || url.username || url.password) {
      throw new ApiBaseError(`the connection's ${whole[1]} is not an https URL`);
    }
    filled = url.origin + (whole[2] ?? "").replace(PLACEHOLDER, (_, name: string) => safe(name, lookup(name)));
  } else {
    filled = template.replace(PLACEHOLDER, (_, name: string) => (name === "baseUrl" ? baseUrl : safe(name, lookup(name))));
  }
  return new URL(filled.replace(/\/+$/, ""));
}

/**
 * A path with its `{name}`s filled per connection by the same rule as the base (params first, then
 * the identity metadata at the declared placeholder path), each value a plain name: a polled
 * request's `/v4/groups/{defaultGroup}/bitlinks`. Throws ApiBaseError when the connection has none.
 */
export function fillPath(api: ApiDeclaration, path: string, connection: { params: unknown; metadata: unknown }): string {
  return path.replace(PLACEHOLDER, (_, name: string) => {
    const value = connectionValue(connection, name, api.placeholders[name] ?? name);
    if (value === undefined) throw new ApiBaseError(`the connection has no ${name} to call its API with`);
    return safe(name, value);
  });
}

/**
 * The api section for one connection: a declared header naming a connection value (Harvest's
 * `Harvest-Account-Id: {accountId}`) filled by the same rule as a path; one the connection has no
 * value for is not sent (the provider then says what is missing). Only the proxy's caller overrides it.
 */
export function forConnection(api: ApiDeclaration, connection: { params: unknown; metadata: unknown }): ApiDeclaration {
  const named = Object.entries(api.headers).filter(([, value]) => value.includes("{"));
  if (named.length === 0) return api;
  const headers = { ...api.headers };
  for (const [name, value] of named) {
    try {
      headers[name] = fillPath(api, value, connection);
    } catch (error) {
      if (!(error instanceof ApiBaseError)) throw error;
      delete headers[name];
    }
  }
  return { ...api, headers };
}

/** `pathAndQuery` (starting with `/`) under a resolved API base. */
export const underBase = (base: URL, pathAndQuery: string): URL => new URL(`${base.href.replace(/\/+$/, "")}${pathAndQuery}`);

function safe(name: string, value: string): string {
  if (!SAFE_LABEL.test(value)) throw new ApiBaseError(`the connection's ${name} is not a plain name (letters, digits, _ and - only)`);
  return value;
}

/** Milliseconds to wait before retrying a rate-limited answer, from the declared headers; undefined when none says. */
export function declaredRateLimitWaitMs(api: ApiDeclaration, headers: Record<string, string | string[] | undefined>, nowMs: number): number | undefined {
  for (const { header, value } of api.rateLimitHeaders) {
    const raw = headers[header];
    const text = Array.isArray(raw) ? raw[0] : raw;
    if (!text || !/^\d+(\.\d+)?$/.test(text.trim())) continue;
    const number = Number(text);
    return Math.max(0, value === "seconds" ? number * 1000 : number * 1000 - nowMs);
  }
  return undefined;
}

/** The header that carries a connection's credential in the connector's declared style; undefined when it goes in the query. */
export function credentialHeader(api: ApiDeclaration, token: string): [name: string, value: string] | undefined {
  if (api.auth.style === "bearer") return ["authorization", `Bearer ${token}`];
  if (api.auth.style === "basic") return ["authorization", `Basic ${token}`];
  if (api.auth.style === "header") return [api.auth.header, `${api.auth.prefix}${token}`];
  return undefined;
}

/**
 * `url` and `headers` carrying a connection's credential in the connector's declared style, with the
 * declared headers (a required API version) under the caller's own: the proxy's, the poller's, the
 * subscription calls' and the credential check's.
 */
export function withCredential(api: ApiDeclaration, url: URL, headers: Record<string, string | string[]>, token: string) {
  const out: Record<string, string | string[]> = { ...api.headers, ...headers };
  const header = credentialHeader(api, token);
  if (header) out[header[0]] = header[1];
  else if (api.auth.style === "query") {
    // Only this style changes the URL: a copy, so the caller's stays without the token.
    const sent = new URL(url);
    sent.searchParams.set(api.auth.param, token);
    return { url: sent, headers: out };
  }
  return { url, headers: out };
}
