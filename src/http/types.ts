import type { IncomingHttpHeaders } from "node:http";

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
}

export interface HttpResponse {
  status: number;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export type RouteHandler = (request: HttpRequest) => Promise<HttpResponse>;

export interface Route {
  method: "GET" | "POST" | "DELETE";
  /** A path with `:name` segments, e.g. `/webhooks/:deploymentId/:connector`. */
  path: string;
  handler: RouteHandler;
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
