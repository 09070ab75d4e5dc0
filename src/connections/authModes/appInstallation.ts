import { hasApp } from "../../credentials/clientCredentials.ts";
import { InstallationRefusedError, mintInstallationToken } from "../../oauth/appInstallation.ts";
import { type AuthModeStrategy, noCredentialForm, type RenewRequest, type Renewal } from "./strategy.ts";

/**
 * An app installation (GitHub Apps): the end user installs the app; its tokens are minted anew with
 * the app's key whenever needed (no refresh token), so it is always renewable.
 */
export const appInstallation: AuthModeStrategy = {
  mode: "APP_INSTALLATION",
  tokenType: "Bearer",
  connect: "install",
  credentialFields: () => undefined,
  wireCredential: noCredentialForm("APP_INSTALLATION"),
  canConnect: hasApp,
  clientLabel: "app (its id, slug and private key)",
  serviceVariables: ["APP_ID", "PRIVATE_KEY", "SLUG"],
  operatorClient: "app",
  connectNote: (def) => `You will install the app at ${def.displayName} and choose which repositories it may access.`,
  consentItems: (def) => [`The repositories and permissions you choose when installing the app at ${def.displayName}`],
  renewable: () => true,
  async renew({ def, config, credentials, externalId, now }: RenewRequest): Promise<Renewal> {
    if (!hasApp(credentials)) throw new Error(`no app is configured for ${def.name}`);
    try {
      const token = await mintInstallationToken(def, config.connectorEnv, credentials.app, externalId, now);
      return { kind: "renewed", accessToken: token.accessToken, expiresAt: token.expiresAt, scopes: token.scopes };
    } catch (error) {
      // The installation is gone at the provider (uninstalled, or the app's access to it revoked).
      if (error instanceof InstallationRefusedError && (error.status === 404 || error.status === 403)) {
        return { kind: "refused", code: "installation_gone", message: `The provider refused a token for this installation (${error.message}).` };
      }
      throw error;
    }
  },
};
