import { AppError } from "../errors.ts";

/**
 * No text column accepts a NUL character (PostgreSQL refuses `\u0000` in text and jsonb), and no
 * legitimate path or query value carries one. Refused here, once for every route, so that no
 * handler can turn it into a database error (a 500) by passing it on.
 */
export function refuseNulInRequest(url: URL, params: Record<string, string>): void {
  for (const [name, value] of Object.entries(params)) {
    if (value.includes("\0")) throw new AppError("BAD_USER_INPUT", `The path segment ${name} contains a NUL character.`);
  }
  for (const [name, value] of url.searchParams) {
    if (name.includes("\0")) throw new AppError("BAD_USER_INPUT", "A query parameter name contains a NUL character.");
    if (value.includes("\0")) throw new AppError("BAD_USER_INPUT", `The query parameter ${name.slice(0, 64)} contains a NUL character.`);
  }
}
