import type { IncomingHttpHeaders } from "node:http";
import type { Config } from "../config.ts";
import { SESSION_COOKIE, sessionTokenFrom } from "../auth/principal.ts";
import { json, type HttpResponse } from "../http/types.ts";

/**
 * Cross-site request forgery defences for /graphql (HTTP and the websocket upgrade), in one place:
 * every path that serves GraphQL calls `refuseGraphQLRequest` on the node request before running
 * anything, and yoga's CORS answers come from the same `OriginPolicy` (docs/security.md).
 *
 * The session cookie is ambient: a browser attaches it to requests that other pages start, and
 * SameSite=Lax does not stop pages of the same site (another port of the host, a sibling
 * subdomain). API keys and bearer tokens are not ambient — a page cannot add those headers to a
 * cross-origin request without a CORS preflight, which only allowed origins pass — so callers
 * that send them are left alone, from anywhere.
 */

export const CSRF_HEADER = "x-graphql-yoga-csrf";

export interface OriginPolicy {
  /** Whether pages of `origin` may use the session cookie (and get credentialed CORS). */
  allows(origin: string, host: string | undefined): boolean;
  /** yoga's `cors` option: credentialed CORS for allowed origins, no CORS headers for the rest. */
  cors(request: Request): false | { origin: string[]; credentials: true; methods: string[]; allowedHeaders: string[]; maxAge: number };
}

export function createOriginPolicy(config: Pick<Config, "publicUrl" | "corsOrigins">): OriginPolicy {
  const allowed = new Set([new URL(config.publicUrl).origin, ...config.corsOrigins]);
  const allows = (origin: string, host: string | undefined) =>
    allowed.has(origin) ||
    // The address the browser used to reach us (localhost vs 127.0.0.1, Vite's proxy in
    // development) is same-origin too: a page elsewhere cannot make a browser send our Host with
    // its own Origin, and a DNS-rebound name never carries our cookie.
    (host !== undefined && origin !== "null" && hostOf(origin) === host.toLowerCase());
  return {
    allows,
    cors: (request) => {
      const origin = request.headers.get("origin");
      if (!origin || !allows(origin, request.headers.get("host") ?? undefined)) return false;
      return {
        origin: [origin],
        credentials: true,
        methods: ["GET", "POST"],
        allowedHeaders: ["content-type", "authorization", "x-api-key", CSRF_HEADER, "last-event-id"],
        maxAge: 600,
      };
    },
  };
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/** The origin a browser says a request came from: `Origin`, else the origin of `Referer`. */
export function requestOrigin(headers: IncomingHttpHeaders): string | undefined {
  const origin = headers.origin;
  if (origin) return origin;
  const referer = headers.referer;
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return "null";
  }
}

/** True when the request would be authenticated by the session cookie (no key, no bearer token). */
export function usesSessionCookie(headers: IncomingHttpHeaders): boolean {
  if (headers["x-api-key"]) return false;
  if (headers.authorization?.toLowerCase().startsWith("bearer ")) return false;
  return sessionTokenFrom({ cookie: headers.cookie }) !== undefined;
}

/**
 * Whether a browser page elsewhere sent this request: its Origin (or Referer) is not allowed, or,
 * with neither, fetch metadata says it came from another site (`<script src>`, `<img>`).
 */
export function fromForeignPage(policy: OriginPolicy, headers: IncomingHttpHeaders): string | undefined {
  const origin = requestOrigin(headers);
  if (origin !== undefined) return policy.allows(origin, headers.host) ? undefined : origin;
  const site = headers["sec-fetch-site"];
  return site === "cross-site" || site === "same-site" ? "another site" : undefined;
}

/**
 * The answer to a /graphql request that must not run, or undefined. Applies to requests without
 * an API key or bearer token:
 * - from a page whose origin is not allowed ⇒ refused, cookie or not (no login CSRF either);
 * - with the session cookie, only `application/json` POSTs, or any request that carries the
 *   `x-graphql-yoga-csrf` header (a custom header forces a CORS preflight), are served: an HTML
 *   form (urlencoded, multipart, text/plain) or a tag's GET cannot send either.
 * Refusals are 403 with a GraphQL body whose `extensions.code` is FORBIDDEN.
 */
export function refuseGraphQLRequest(policy: OriginPolicy, method: string, headers: IncomingHttpHeaders): HttpResponse | undefined {
  if (method === "OPTIONS") return undefined;
  if (headers["x-api-key"] || headers.authorization?.toLowerCase().startsWith("bearer ")) return undefined;
  // A page load (GraphiQL, or a result shown to the user who followed a link) gives the linking
  // page nothing it can read, and GET never runs mutations.
  if ((method === "GET" || method === "HEAD") && headers.accept?.includes("text/html")) return undefined;
  const foreign = fromForeignPage(policy, headers);
  if (foreign !== undefined) {
    return forbidden(
      `Requests from ${foreign === "another site" ? foreign : `the origin ${foreign}`} may not use this service's session. ` +
        "Use the console at this service's own address, add the origin to CORS_ORIGINS, or send an API key.",
    );
  }
  if (!usesSessionCookie(headers) || headers[CSRF_HEADER]) return undefined;
  const contentType = headers["content-type"]?.split(";")[0].trim().toLowerCase();
  if (method === "POST" && contentType === "application/json") return undefined;
  return forbidden(
    `With the ${SESSION_COOKIE} cookie, send GraphQL as a POST with Content-Type: application/json, ` +
      `or add the ${CSRF_HEADER} header (any value).`,
  );
}

const forbidden = (message: string): HttpResponse => json(403, { errors: [{ message, extensions: { code: "FORBIDDEN" } }] });
