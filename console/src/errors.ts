import type { CombinedError } from "urql";

/** A field's message from the server's `extensions.fields` (BAD_USER_INPUT), keyed by field path. */
export type FieldErrors = Record<string, string>;

export function fieldErrors(error: CombinedError | undefined): FieldErrors {
  const result: FieldErrors = {};
  for (const graphQLError of error?.graphQLErrors ?? []) {
    const fields = graphQLError.extensions?.fields;
    if (!Array.isArray(fields)) continue;
    for (const field of fields as { field?: string; message?: string }[]) {
      if (field.field && field.message && !result[field.field]) result[field.field] = field.message;
    }
  }
  return result;
}

export function errorCode(error: CombinedError | undefined): string | undefined {
  const code = error?.graphQLErrors[0]?.extensions?.code;
  return typeof code === "string" ? code : undefined;
}

/** What went wrong and what to do about it, in words for the person at the console. */
export function describeError(error: CombinedError | Error | undefined): string {
  if (!error) return "Something went wrong. Try again.";
  if (!("graphQLErrors" in error)) return error.message;
  if (error.networkError) return "Could not reach the Switchyard service. Check that it is running and your connection is up, then try again.";
  const first = error.graphQLErrors[0];
  const code = errorCode(error);
  switch (code) {
    case "UNAUTHENTICATED":
      return first?.message && !/^Log in, or send an API key/.test(first.message) ? first.message : "Your session has ended. Log in again to continue.";
    case "FORBIDDEN":
      return "You do not have access to this. Ask an owner or admin of the organization for access.";
    case "NOT_FOUND":
      return `${first?.message ?? "It was not found."} It may have been deleted: go back and pick it again.`;
    case "RATE_LIMITED": {
      const retryAfter = first?.extensions?.retryAfter;
      return `Too many attempts. Wait ${typeof retryAfter === "number" ? `${retryAfter} seconds` : "a minute"} and try again.`;
    }
    case "INTERNAL_SERVER_ERROR":
      return "The service hit an unexpected error. Try again; if it keeps happening, check the service's log.";
    default:
      return first?.message ?? error.message;
  }
}
