import type { Config } from "../../config.ts";
import type { CredentialsDeclaration } from "../../connectors/credentials.ts";
import type { AuthMode } from "../../connectors/declaration.ts";
import type { ConnectorDefinition } from "../../connectors/types.ts";
import type { ResolvedCredentials } from "../../credentials/clientCredentials.ts";

/** What a renewal knows of the connection whose token it renews. */
export interface RenewRequest {
  def: ConnectorDefinition;
  config: Config;
  credentials: ResolvedCredentials;
  /** The provider's id of the account (an app installation's id). */
  externalId: string;
  /** The stored refresh token, opened (null: none was given). */
  refreshToken: string | null;
  /** The connection's parameters (they fill per-tenant URLs). */
  params: Record<string, string>;
  now: Date;
}

/**
 * What a renewal came to: a new token (a refresh token only when the provider rotated it; no scopes
 * when it named none), or `refused` — the grant or installation is gone and a person must
 * authorize again. A provider that did not answer throws: the renewal is tried again later.
 */
export type Renewal =
  | { kind: "renewed"; accessToken: string; refreshToken?: string; expiresAt: Date | null; scopes: string[] }
  | { kind: "refused"; code: string; message: string };

/**
 * One auth mode (OAuth 2.0, API key, Basic, app installation, none): everything the service does
 * differently for it, behind one interface. The rest of the code asks the connector's strategy
 * (authModeOf) and never branches on `authMode` itself.
 */
export interface AuthModeStrategy {
  mode: AuthMode;
  /** What GET …/token calls the connection's credential. */
  tokenType: "Bearer" | "ApiKey" | "Basic";
  /**
   * How an end user connects: signs in at the provider (`authorize`), installs the app (`install`),
   * or types what the connector names into our form (`credentials`); null: never connected
   * (Switchyard's own events), so it has no authorization URL.
   */
  connect: "authorize" | "install" | "credentials" | null;
  /** The declaration of the form's fields (credentials only). */
  credentialFields(def: ConnectorDefinition): CredentialsDeclaration | undefined;
  /** The one credential sent on every call, from what the end user typed (credentials only). */
  wireCredential(decl: CredentialsDeclaration, values: Record<string, string>): string;
  /** Whether a connect flow can run with the credentials in force (the end user could finish it). */
  canConnect(credentials: ResolvedCredentials): boolean;
  /** What the operator configures for it, in a sentence's words ("OAuth client"). */
  clientLabel: string;
  /** The service-wide variables that make it connectable, after the connector's prefix. */
  serviceVariables: string[];
  /** What the operator stores as their own in the console: an OAuth client, or an app. */
  operatorClient: "oauthClient" | "app";
  /** The connect page's line on what happens next. */
  connectNote(def: ConnectorDefinition): string;
  /** The consent page's list of what is shared (`fields`: the form's field names, credentials only). */
  consentItems(def: ConnectorDefinition): string[];
  /** Whether the token can be renewed without the user, given whether the account holds a refresh token. */
  renewable(hasRefreshToken: boolean): boolean;
  /** Renews the token (only called when `renewable`). */
  renew(request: RenewRequest): Promise<Renewal>;
}

export const noCredentialForm = (mode: AuthMode) => (): string => {
  throw new Error(`an ${mode} connector has no credentials form`);
};

export const neverRenewed = (mode: AuthMode) => async (): Promise<Renewal> => {
  throw new Error(`an ${mode} connection's token is never renewed`);
};

/** "A, B and C". */
export const listed = (items: string[]) => (items.length > 1 ? `${items.slice(0, -1).join(", ")} and ${items.at(-1)}` : (items[0] ?? ""));
