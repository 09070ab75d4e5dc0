import type { NormalizedToken } from "./types.ts";

/** A token endpoint answered with an OAuth error, in whatever shape the provider uses. */
export class TokenResponseError extends Error {
  readonly code: string;
  readonly description: string | undefined;
  constructor(code: string, description?: string) {
    super(description ? `${code}: ${description}` : code);
    this.name = "TokenResponseError";
    this.code = code;
    this.description = description;
  }
}

/** Providers disagree on the separator in the `scope` they return (GitHub commas, RFC 6749 spaces). */
export function splitScopes(value: unknown): string[] {
  if (typeof value !== "string") return [];
  return value.split(/[\s,]+/).filter((s) => s.length > 0);
}

function positiveNumber(value: unknown): number | undefined {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : undefined;
}

/**
 * RFC 6749 §5.1 / §5.2 token response. Some providers answer errors with HTTP 200 (GitHub), so an
 * `error` member is an error regardless of status.
 */
export function readStandardTokenResponse(body: Record<string, unknown>): NormalizedToken {
  if (typeof body.error === "string") {
    throw new TokenResponseError(
      body.error,
      typeof body.error_description === "string" ? body.error_description : undefined,
    );
  }
  const accessToken = body.access_token;
  if (typeof accessToken !== "string" || accessToken.length === 0) {
    throw new TokenResponseError("invalid_token_response", "no access_token in the token response");
  }
  const refreshToken = typeof body.refresh_token === "string" && body.refresh_token ? body.refresh_token : undefined;
  return {
    accessToken,
    refreshToken,
    expiresIn: positiveNumber(body.expires_in),
    scopes: splitScopes(body.scope),
    raw: body,
  };
}
