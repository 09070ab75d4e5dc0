import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";

/** What a REST route sees: the parsed URL, headers, path parameters and a size-capped body reader. */
export interface HttpRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  params: Record<string, string>;
  /** The remote address, for rate limits. */
  ip: string;
  /** Reads the whole body; rejects with 413 past `limitBytes`. */
  body(limitBytes: number): Promise<Buffer>;
  /** The body as it arrives, unread (the proxy streams it on); use either this or `body`. */
  stream(): Readable;
}

export interface HttpResponse {
  status: number;
  headers?: Record<string, string | string[]>;
  /** A Readable is streamed (the proxy's answers): no Content-Length unless `headers` has one. */
  body?: string | Buffer | Readable;
}

export type RouteHandler = (request: HttpRequest) => Promise<HttpResponse>;

export interface Route {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";
  /** A path with `:name` segments, e.g. `/webhooks/:deploymentId/:connector`. */
  path: string;
  handler: RouteHandler;
  /** Headers added to every problem answered for this route (the proxy's `x-switchyard-error: true`). */
  problemHeaders?: Record<string, string>;
}

export function header(request: HttpRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export const json = (status: number, value: unknown, headers: Record<string, string | string[]> = {}): HttpResponse => ({
  status,
  headers: { "content-type": "application/json; charset=utf-8", ...headers },
  body: JSON.stringify(value),
});

export const html = (status: number, body: string, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers: {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self' *; frame-ancestors 'none'",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    ...headers,
  },
  body,
});
