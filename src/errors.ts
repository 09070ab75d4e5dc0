import * as z from "zod";

/**
 * Every expected failure, declared once: its REST status and problem `code` (snake_case, part of
 * the contract) and its GraphQL `extensions.code`. Capabilities, routes and resolvers throw an
 * AppError with one of these codes; src/http/problem.ts turns it into problem+json and
 * src/graphql/errors.ts into a GraphQL error — nowhere else maps them. This module knows neither
 * surface's library.
 */
export const errorCodes = {
  UNAUTHENTICATED: { status: 401, problem: "unauthenticated", graphql: "UNAUTHENTICATED" },
  MISSING_API_KEY: { status: 401, problem: "missing_api_key", graphql: "UNAUTHENTICATED" },
  INVALID_API_KEY: { status: 401, problem: "invalid_api_key", graphql: "UNAUTHENTICATED" },
  FORBIDDEN: { status: 403, problem: "forbidden", graphql: "FORBIDDEN" },
  NOT_FOUND: { status: 404, problem: "not_found", graphql: "NOT_FOUND" },
  /** The same input is the same answer on both surfaces: nothing by that name. */
  UNKNOWN_CONNECTOR: { status: 404, problem: "unknown_connector", graphql: "NOT_FOUND" },
  BAD_USER_INPUT: { status: 400, problem: "invalid_parameter", graphql: "BAD_USER_INPUT" },
  /** REST only: a request the HTTP layer cannot read (a malformed URL or percent-encoding). */
  INVALID_REQUEST: { status: 400, problem: "invalid_request", graphql: "BAD_USER_INPUT" },
  /** REST only: an inbound webhook its provider did not sign for this deployment. */
  INVALID_SIGNATURE: { status: 401, problem: "invalid_signature", graphql: "UNAUTHENTICATED" },
  /** REST only: the path exists, the method does not. */
  METHOD_NOT_ALLOWED: { status: 405, problem: "method_not_allowed", graphql: "BAD_USER_INPUT" },
  /** REST only: a request body that did not fully arrive within BODY_TIMEOUT. */
  REQUEST_TIMEOUT: { status: 408, problem: "request_timeout", graphql: "BAD_USER_INPUT" },
  CONFLICT: { status: 409, problem: "conflict", graphql: "CONFLICT" },
  CONNECTOR_NOT_CONFIGURED: { status: 409, problem: "connector_not_configured", graphql: "CONFLICT" },
  /** A connection (connected account) by that connector and account, in the caller's deployment. */
  CONNECTION_NOT_FOUND: { status: 404, problem: "connection_not_found", graphql: "NOT_FOUND" },
  /** A resource the connection watches, by id (DELETE …/resources/{id}, unwatchResource). */
  RESOURCE_NOT_FOUND: { status: 404, problem: "resource_not_found", graphql: "NOT_FOUND" },
  /** A per-connection limit was reached (MAX_RESOURCES_PER_CONNECTION). */
  LIMIT_EXCEEDED: { status: 409, problem: "limit_exceeded", graphql: "LIMIT_EXCEEDED" },
  /** The provider refused the refresh: the end user must authorize again (a new auth-url). */
  REAUTH_REQUIRED: { status: 409, problem: "reauth_required", graphql: "REAUTH_REQUIRED" },
  /** The connection was deleted; its tokens are gone. */
  CONNECTION_DISCONNECTED: { status: 409, problem: "connection_disconnected", graphql: "CONFLICT" },
  /** A request body over a route's limit (the proxy's PROXY_MAX_BODY). */
  PAYLOAD_TOO_LARGE: { status: 413, problem: "payload_too_large", graphql: "BAD_USER_INPUT" },
  RATE_LIMITED: { status: 429, problem: "rate_limited", graphql: "RATE_LIMITED" },
  /** The provider behind the proxy could not be reached (DNS, refused, reset). */
  PROVIDER_UNREACHABLE: { status: 502, problem: "provider_unreachable", graphql: "SERVICE_UNAVAILABLE" },
  SERVICE_UNAVAILABLE: { status: 503, problem: "database_unavailable", graphql: "SERVICE_UNAVAILABLE" },
  /** A provider a notification points at could not be read; the provider should deliver it again. */
  UPSTREAM_UNAVAILABLE: { status: 503, problem: "upstream_unavailable", graphql: "SERVICE_UNAVAILABLE" },
  /** BODY_MAX_IN_FLIGHT request bodies are being received on this instance already. */
  SERVER_BUSY: { status: 503, problem: "server_busy", graphql: "SERVICE_UNAVAILABLE" },
  /** This instance is draining for shutdown; another one takes the request. */
  SHUTTING_DOWN: { status: 503, problem: "shutting_down", graphql: "SERVICE_UNAVAILABLE" },
  /**
   * The embedded database's disk is under MIN_FREE_DISK_MB (/readyz, new events) or a database
   * server's disk is full. GraphQL answers it with its HTTP status and Retry-After too: nothing was stored.
   */
  DISK_SPACE_LOW: { status: 503, problem: "disk_space_low", graphql: "SERVICE_UNAVAILABLE", graphqlHttpStatus: true },
  /** The provider behind the proxy did not answer within PROXY_TIMEOUT. */
  PROVIDER_TIMEOUT: { status: 504, problem: "provider_timeout", graphql: "SERVICE_UNAVAILABLE" },
} as const satisfies Record<string, { status: number; problem: string; graphql: string; graphqlHttpStatus?: true }>;

export type ErrorCode = keyof typeof errorCodes;

export interface FieldError {
  field: string;
  message: string;
}

export interface AppErrorExtra {
  fields?: FieldError[];
  retryAfterSeconds?: number;
  /** Extra members of the REST problem document (RFC 9457 §3.2), e.g. which settings fix it. */
  problemMembers?: Record<string, unknown>;
  /** Extra REST response headers (`allow`, `www-authenticate`, `connection: close`). */
  headers?: Record<string, string>;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: AppErrorExtra = {},
  ) {
    super(message);
  }
}

export const unauthenticated = (message = "Log in, or send an API key in the x-api-key header.") =>
  new AppError("UNAUTHENTICATED", message);
export const forbidden = (message = "You do not have access to this resource.") => new AppError("FORBIDDEN", message);
export const notFound = (what: string) => new AppError("NOT_FOUND", `${what} was not found.`);
export const unknownConnector = (name: string) =>
  new AppError("UNKNOWN_CONNECTOR", `There is no connector named "${name}".`, { fields: [{ field: "connector", message: "unknown connector" }] });

export const connectionNotFound = (connector: string, account: string) =>
  new AppError("CONNECTION_NOT_FOUND", `There is no connection for account "${account}" of connector "${connector}" in this deployment.`);

export const missingApiKey = () => new AppError("MISSING_API_KEY", "Send your deployment's API key in the x-api-key header.");
export const invalidApiKey = () => new AppError("INVALID_API_KEY", "The API key is not valid: it may have been revoked, expired or mistyped.");

/** The database cannot be reached (src/db/outage.ts): 503 `database_unavailable` on REST, SERVICE_UNAVAILABLE on GraphQL. */
export const databaseUnavailable = (retryAfterSeconds: number) =>
  new AppError("SERVICE_UNAVAILABLE", `The database is unreachable right now; nothing was changed. Retry in ${retryAfterSeconds} s.`, { retryAfterSeconds });

export function badInput(message: string, fields: FieldError[] = []): AppError {
  return new AppError("BAD_USER_INPUT", message, { fields });
}

/** Parses with zod; a failure becomes BAD_USER_INPUT naming every bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields = result.error.issues.map((issue) => ({ field: issue.path.join("."), message: issue.message }));
  throw badInput(fields.map((f) => (f.field ? `${f.field}: ${f.message}` : f.message)).join("; "), fields);
}
