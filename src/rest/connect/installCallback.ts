import type { RedirectErrorCode } from "../../connections/redirects.ts";
import type { ConnectorDefinition } from "../../connectors/types.ts";
import { TokenResponseError } from "../../connectors/tokenResponse.ts";
import { hasApp, hasOAuthClient } from "../../credentials/clientCredentials.ts";
import type { HttpResponse } from "../../http/types.ts";
import { INSTALLATION_ID, InstallationRefusedError, mintInstallationToken, readInstallation, userReachesInstallation } from "../../oauth/appInstallation.ts";
import type { ConnectSessionRow } from "../../connect/sessions.ts";
import { exchangeCode, oauth, ProviderUnavailableError, providerFor } from "../../oauth/provider.ts";
import { type ConnectFlowDeps, finishConnected, problemPage } from "./flow.ts";
import { errorPage, refuse } from "./page.ts";

const RETRY = "Open the link you were given again to try once more.";

/**
 * How long before the connect session a fresh installation may have been created (clock skew
 * between us and the provider) when it is believed without the installing user's authorization.
 */
const FRESH_INSTALL_SKEW_MS = 60_000;

/**
 * The end of an APP_INSTALLATION flow, at /oauth/callback once the state is spent: the provider
 * sent the browser back with `installation_id`, `setup_action` (and `code` when the app asks for user
 * authorization during installation). The installation id in that redirect can be forged, so it is
 * confirmed before anything is stored:
 * - with `code`: exchanged (the app's client id and secret) for the installing user's token, and the
 *   installation must be among those that user can reach (`installation.userInstallations`);
 * - without: the installation must exist for this app (read with the app's JWT) and have been created
 *   during this connect session by a fresh install (`setup_action=install`): an existing installation
 *   named by someone else is refused.
 * Then the installation's account is the identity (externalId = the installation id) and the first
 * installation token is minted and stored like an access token.
 */
export async function completeInstallation(
  deps: ConnectFlowDeps,
  session: ConnectSessionRow,
  def: ConnectorDefinition,
  params: URLSearchParams,
  state: string,
  fail: (error: RedirectErrorCode, page: HttpResponse) => Promise<never>,
  cookie: string,
): Promise<HttpResponse> {
  const setupAction = params.get("setup_action");
  if (setupAction === "request") {
    return fail("access_denied", errorPage(403, "The installation waits for approval", `An owner of the ${def.displayName} account must approve the installation first. Nothing was connected.`, "Once it is approved, open the link you were given again."));
  }
  const installationId = params.get("installation_id") ?? "";
  if (!INSTALLATION_ID.test(installationId)) {
    return fail("provider_error", errorPage(400, "This installation could not be verified", `The response from ${def.displayName} names no installation.`, RETRY));
  }
  const credentials = await deps.clientCredentials.resolve(session.deploymentId, def);
  if (!hasApp(credentials)) return fail("provider_error", errorPage(503, `${def.displayName} is not set up`, "The application's connection settings changed during the installation.", RETRY));
  const env = deps.config.connectorEnv;
  const notConfirmed = () =>
    fail("identity_error", errorPage(403, "This installation could not be confirmed", `We could not confirm that you installed the app on this ${def.displayName} account, so nothing was connected.`, RETRY));
  const unavailable = (err: unknown) => {
    deps.logger.warn({ connector: def.name, reason: (err as Error).message }, "app installation could not be confirmed: provider unavailable");
    return fail("provider_error", errorPage(502, `${def.displayName} did not answer`, `We could not complete the installation with ${def.displayName}: its server failed to answer. Nothing was connected.`, RETRY));
  };

  try {
    const code = params.get("code");
    if (code) {
      if (!hasOAuthClient(credentials)) {
        return fail("provider_error", errorPage(503, `${def.displayName} is not set up`, "The app asks for your authorization, but the application has not set up its client ID and secret.", "Please tell the application's support team."));
      }
      const provider = providerFor(deps.config, def, credentials, {});
      const userToken = await exchangeCode(provider, deps.config, params, state, undefined).catch((err: unknown) => {
        if (err instanceof TokenResponseError || err instanceof oauth.OperationProcessingError || err instanceof oauth.AuthorizationResponseError) {
          deps.logger.info({ connector: def.name, code: (err as { code?: string }).code }, "code exchange refused");
          return fail("provider_error", errorPage(400, `${def.displayName} refused the sign-in`, `${def.displayName} did not accept the authorization. Nothing was connected.`, RETRY));
        }
        throw err;
      });
      // The user token proves who came back; it is used for this check only and never stored.
      if (!(await userReachesInstallation(def, env, userToken.accessToken, installationId))) {
        deps.logger.warn({ connector: def.name, deploymentId: session.deploymentId }, "app installation refused: not reachable by the installing user");
        return notConfirmed();
      }
    }
    const { identity, createdAt } = await readInstallation(def, env, credentials.app, installationId, deps.clock.now());
    if (identity.externalId !== installationId) return notConfirmed();
    if (!code && (setupAction !== "install" || !createdAt || createdAt.getTime() < session.createdAt.getTime() - FRESH_INSTALL_SKEW_MS)) {
      deps.logger.warn({ connector: def.name, deploymentId: session.deploymentId, setupAction }, "app installation refused: not created during this connect session, and no user authorization to confirm it");
      return notConfirmed();
    }
    const now = deps.clock.now();
    const token = await mintInstallationToken(def, env, credentials.app, installationId, now);
    const expiresIn = token.expiresAt ? Math.max(1, Math.floor((token.expiresAt.getTime() - now.getTime()) / 1000)) : undefined;
    const saved = await deps.store.save(now, { ...session, params: {} }, { accessToken: token.accessToken, expiresIn, scopes: token.scopes, raw: {} }, identity, []).catch((err: unknown) => {
      deps.logger.error({ err, connector: def.name }, "could not save a connection");
      return fail("identity_error", errorPage(500, "This connection could not be saved", `We could not store your ${def.displayName} installation. Nothing was connected.`, RETRY));
    });
    if (!saved) refuse(problemPage("completed"));
    return finishConnected(deps, session, def, saved, identity, cookie);
  } catch (err) {
    if (err instanceof InstallationRefusedError) {
      deps.logger.warn({ connector: def.name, status: err.status }, "app installation refused by the provider");
      return notConfirmed();
    }
    if (err instanceof ProviderUnavailableError || (err as Error)?.name === "TimeoutError") return unavailable(err);
    throw err;
  }
}
