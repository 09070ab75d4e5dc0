import { GraphQLError } from "graphql";
import { z } from "zod";

/**
 * Expected failures, thrown by services and mapped in one place per surface: GraphQL puts `code`
 * in `extensions.code`; REST turns it into problem+json (src/http/problem.ts).
 */
export type ErrorCode = "UNAUTHENTICATED" | "FORBIDDEN" | "NOT_FOUND" | "BAD_USER_INPUT" | "RATE_LIMITED" | "CONFLICT" | "SERVICE_UNAVAILABLE";

export interface FieldError {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { fields?: FieldError[]; retryAfterSeconds?: number } = {},
  ) {
    super(message);
  }
}

export const unauthenticated = (message = "Log in, or send an API key in the x-api-key header.") =>
  new AppError("UNAUTHENTICATED", message);
export const forbidden = (message = "You do not have access to this resource.") => new AppError("FORBIDDEN", message);
export const notFound = (what: string) => new AppError("NOT_FOUND", `${what} was not found.`);

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

export function toGraphQLError(error: AppError): GraphQLError {
  return new GraphQLError(error.message, {
    extensions: {
      code: error.code,
      ...(error.extra.fields?.length ? { fields: error.extra.fields } : {}),
      ...(error.extra.retryAfterSeconds !== undefined ? { retryAfter: error.extra.retryAfterSeconds } : {}),
    },
  });
}
