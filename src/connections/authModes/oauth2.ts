import { hasOAuthClient } from "../../credentials/clientCredentials.ts";
import { providerFor } from "../../oauth/provider.ts";
import { refresh } from "../../oauth/refresh.ts";
import { type AuthModeStrategy, noCredentialForm, type RenewRequest, type Renewal } from "./strategy.ts";

/** OAuth 2.0 (RFC 6749): the end user signs in at the provider; a refresh token, where given, renews the access token. */
export const oauth2: AuthModeStrategy = {
  mode: "OAUTH2",
  tokenType: "Bearer",
  connect: "authorize",
  credentialFields: () => undefined,
  wireCredential: noCredentialForm("OAUTH2"),
  canConnect: hasOAuthClient,
  clientLabel: "OAuth client",
  serviceVariables: ["CLIENT_ID", "CLIENT_SECRET"],
  operatorClient: "oauthClient",
  connectNote: (def) => `You will sign in at ${def.displayName} and choose whether to allow access.`,
  consentItems: (def) => def.oauth.scopes.map((scope) => def.oauth.scopeDescriptions?.[scope] ?? scope),
  // A token without a refresh token (a GitHub OAuth app's) cannot be renewed.
  renewable: (hasRefreshToken) => hasRefreshToken,
  async renew({ def, config, credentials, refreshToken, params, now }: RenewRequest): Promise<Renewal> {
    if (!hasOAuthClient(credentials)) throw new Error(`no OAuth client is configured for ${def.name}`);
    const outcome = await refresh(providerFor(config, def, credentials, params), refreshToken!);
    if (outcome.kind === "grant_gone") return { kind: "refused", code: outcome.code, message: outcome.message };
    const { token } = outcome;
    return {
      kind: "renewed",
      accessToken: token.accessToken,
      ...(token.refreshToken ? { refreshToken: token.refreshToken } : {}),
      expiresAt: token.expiresIn ? new Date(now.getTime() + token.expiresIn * 1000) : null,
      scopes: token.scopes,
    };
  },
};
