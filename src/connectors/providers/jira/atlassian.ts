/**
 * What every Atlassian Cloud connector shares (Jira here, Confluence beside it): Atlassian's OAuth
 * 2.0 (3LO) — `audience=api.atlassian.com`, `offline_access` for a rotating refresh token — and the
 * identity: the sites the token reaches (their cloud ids are in every API path) and the Atlassian
 * account (`GET /me`). Atlassian documents no endpoint that revokes a 3LO grant (users remove the app
 * under their account's connected apps), so the tokens are only forgotten on deletion. Sources:
 * https://developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps/,
 * https://developer.atlassian.com/cloud/oauth/getting-started/making-calls-to-api/.
 */
import type { ConnectorDeclarationInput } from "../../declaration.ts";
import { asRecord, asString } from "../../json.ts";

const BASE_SCOPES = {
  "read:me": "Read your Atlassian profile (your account id, name and email)",
  offline_access: "Keep this access while you are away (until you revoke it)",
};

/** The sign-in of an Atlassian connector asking for `scopes` (each described in words) beyond the profile and offline access. */
export function atlassianOAuth(scopes: Record<string, string>): NonNullable<ConnectorDeclarationInput["oauth"]> {
  const described = { ...scopes, ...BASE_SCOPES };
  return {
    authorizeUrl: "https://auth.atlassian.com/authorize",
    tokenUrl: "https://auth.atlassian.com/oauth/token",
    scopes: Object.keys(described),
    scopeDescriptions: described,
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    extraAuthorizeParams: { audience: "api.atlassian.com", prompt: "consent" },
    refresh: true,
  };
}

/**
 * Two reads, both kept on the account. accessible-resources first: a token with no site is useless,
 * and the sites are what the operator needs to call the product's REST API
 * (`https://api.atlassian.com/ex/<product>/{cloudId}/…`). Then who it is.
 */
export const atlassianIdentity: NonNullable<ConnectorDeclarationInput["identity"]> = {
  async read({ fetchJson }) {
    const resources: unknown = await fetchJson("/oauth/token/accessible-resources");
    const sites = (Array.isArray(resources) ? resources : []).map((r) => {
      const site = asRecord(r) ?? {};
      return { cloudId: asString(site.id) ?? null, url: asString(site.url) ?? null, name: asString(site.name) ?? null };
    });
    const me = asRecord(await fetchJson("/me")) ?? {};
    const accountId = asString(me.account_id);
    if (!accountId) throw new Error("Atlassian /me answered without an account_id");
    return { externalId: accountId, displayName: asString(me.name) ?? asString(me.email), metadata: { email: asString(me.email) ?? null, sites } };
  },
};
