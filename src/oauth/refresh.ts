import { TokenResponseError } from "../connectors/tokenResponse.ts";
import type { NormalizedToken } from "../connectors/types.ts";
import { type Provider, refreshGrant } from "./provider.ts";

/**
 * The refresh-token error codes that mean "this grant is gone; a person must authorize again"
 * (RFC 6749 invalid_grant — Google, Atlassian; GitHub's bad_refresh_token; Slack's
 * invalid_refresh_token / token_revoked / token_expired). Anything else is treated as transient.
 */
const GRANT_GONE = new Set(["invalid_grant", "bad_refresh_token", "invalid_refresh_token", "token_revoked", "token_expired", "invalid_token"]);

/** What a refresh came to: a new token, or the provider saying the grant is gone for good. */
export type RefreshOutcome = { kind: "refreshed"; token: NormalizedToken } | { kind: "grant_gone"; code: string; message: string };

/**
 * One refresh-token grant (RFC 6749 §6). A refusal that means the grant is gone is an outcome; a
 * provider that did not answer, or refused for another reason, throws (ProviderUnavailableError,
 * TokenResponseError): the caller tries again later.
 */
export async function refresh(provider: Provider, refreshToken: string): Promise<RefreshOutcome> {
  try {
    return { kind: "refreshed", token: await refreshGrant(provider, refreshToken) };
  } catch (error) {
    if (error instanceof TokenResponseError && GRANT_GONE.has(error.code)) {
      return { kind: "grant_gone", code: error.code, message: error.description ?? `The provider refused the refresh token (${error.code}).` };
    }
    throw error;
  }
}
