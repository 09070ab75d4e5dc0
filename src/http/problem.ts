import { DATABASE_TIMEOUT_MESSAGE, isStatementTimeout } from "../db/errors.ts";
import { AppError, errorCodes } from "../errors.ts";
import type { HttpResponse } from "./types.ts";

/**
 * A REST failure as written: `application/problem+json` (RFC 9457) with a stable snake_case `code`.
 * Never carries a stack trace, SQL or a secret: `detail` is written for the caller.
 * Routes and services throw AppError (src/errors.ts), whose table gives status and code; this is
 * what asProblem makes of it, and what the HTTP layer itself answers before any route runs.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
    /** Extra members of the problem document (RFC 9457 §3.2), e.g. which settings fix it. */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

const titles: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export function asProblem(error: unknown): HttpProblem | undefined {
  if (error instanceof HttpProblem) return error;
  if (isStatementTimeout(error)) return new HttpProblem(503, "database_timeout", DATABASE_TIMEOUT_MESSAGE, { "retry-after": "5" });
  if (error instanceof AppError) {
    const { status, problem } = errorCodes[error.code];
    const headers: Record<string, string> = {
      ...(error.extra.retryAfterSeconds !== undefined ? { "retry-after": String(error.extra.retryAfterSeconds) } : {}),
      ...error.extra.headers,
    };
    return new HttpProblem(status, problem, error.message, headers, error.extra.problemMembers);
  }
  return undefined;
}

export function problemResponse(problem: HttpProblem): HttpResponse {
  return {
    status: problem.status,
    headers: { "content-type": "application/problem+json", ...problem.headers },
    body: JSON.stringify({
      ...problem.extensions,
      type: `https://switchyard.dev/problems/${problem.code.replaceAll("_", "-")}`,
      title: titles[problem.status] ?? "Error",
      status: problem.status,
      detail: problem.detail,
      code: problem.code,
    }),
  };
}

export const internalErrorProblem = () =>
  new HttpProblem(500, "internal_error", "Something went wrong on our side. It has been logged; try again.");
