/**
 * What every Google connector shares (Gmail here; Calendar, Drive, Docs, Sheets and YouTube beside
 * it): Google's OAuth 2.0 for web server applications, and revoking the grant when a connection is
 * deleted. Sources: https://developers.google.com/identity/protocols/oauth2/web-server (the
 * authorization request, offline access, incremental authorization, "Revoking a token").
 */
import type { ConnectorDeclarationInput } from "../../declaration.ts";

type OAuthInput = NonNullable<ConnectorDeclarationInput["oauth"]>;

/**
 * The sign-in of a Google connector asking for `scopes`, each described in words, in that order.
 * `includeGrantedScopes`: the token also carries the scopes this client was granted before
 * (Google's incremental authorization); Gmail asks for its own scope alone.
 */
export function googleOAuth(scopes: Record<string, string>, { includeGrantedScopes = true } = {}): OAuthInput {
  return {
    authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    scopes: Object.keys(scopes),
    scopeDescriptions: scopes,
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_post",
    // Google sends a refresh token only with offline access, and again only when consent is shown.
    extraAuthorizeParams: { access_type: "offline", prompt: "consent", ...(includeGrantedScopes ? { include_granted_scopes: "true" } : {}) },
    refresh: true,
    // "Revoking a token": POST the access or refresh token as the form field `token`, no client
    // authentication; revoking the refresh token revokes the whole grant (its access tokens too).
    revocation: { url: "https://oauth2.googleapis.com/revoke", method: "POST", tokenParam: "token", body: "form", clientAuth: "none", token: "refresh" },
  };
}
