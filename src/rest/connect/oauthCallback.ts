import { authModeOf } from "../../connections/authModes/index.ts";
import { findConnector } from "../../connectors/registry.ts";
import { TokenResponseError } from "../../connectors/tokenResponse.ts";
import { hasOAuthClient } from "../../credentials/clientCredentials.ts";
import { header, type HttpResponse, type Route } from "../../http/types.ts";
import { storedParams } from "../../connectors/params.ts";
import type { RedirectErrorCode } from "../../connections/redirects.ts";
import { checkBrowserBinding, clearedBindingCookie, consumeState, sessionProblem } from "../../connect/sessions.ts";
import { exchangeCode, oauth, ProviderUnavailableError, providerFor, readIdentity } from "../../oauth/provider.ts";
import { type ConnectFlowDeps, finishConnected, problemPage, refuseFlow } from "./flow.ts";
import { errorPage, refuse } from "./page.ts";
import { completeInstallation } from "./installCallback.ts";

const RETRY = "Open the link you were given again to try once more.";

/**
 * GET /oauth/callback — the provider sends the browser back here. The state finds the session (and
 * is spent at once, so a replay finds nothing); then the code is exchanged, the identity read, and
 * the ConnectedAccount stored with the session completed, in one transaction. Every failure throws
 * its page (answered by connectRoutes) and stores no account; the session stays open for a retry until it expires. With a
 * redirectUrl on the session, success and each failure send the browser back to the operator's app
 * instead (status=connected…connectionId, or status=error…error=<code>).
 */
export function getOAuthCallback(deps: ConnectFlowDeps): Route {
  return {
    method: "GET",
    path: "/oauth/callback",
    handler: async (request) => {
      const params = request.url.searchParams;
      const state = params.get("state");
      if (!state || state.length > 200) {
        refuse(errorPage(400, "This sign-in could not be verified", "The response from the provider is missing its security check (state).", RETRY));
      }
      const session = await deps.db.connectSession.findUnique({ where: { state } });
      if (!session) {
        refuse(errorPage(
          400,
          "This sign-in could not be verified",
          "The response does not match any connection in progress: it was already used, or it was altered on the way.",
          RETRY,
        ));
      }
      // From here the session is known: with a redirectUrl, the flow's end goes back to the operator's app.
      const fail = (error: RedirectErrorCode, page: HttpResponse) => refuseFlow(deps, session, error, page);
      const problem = sessionProblem(session, deps.clock.now());
      if (problem === "expired") return fail("expired", problemPage(problem));
      if (problem) refuse(problemPage(problem));
      const def = findConnector(session.connector);
      if (!def) refuse(problemPage("unknown"));

      // Checked before the state is spent: a stranger's browser opening a forwarded provider URL
      // must not use up the attempt of the person who started it.
      const binding = checkBrowserBinding(deps, session.id, state, header(request, "cookie"));
      if (binding !== "ok") {
        deps.logger.info({ connector: def.name, binding }, "oauth callback from a browser that did not start the attempt");
        return fail("state_mismatch", errorPage(
          403,
          "This sign-in was started in another browser",
          binding === "missing"
            ? "This browser did not start this connection (or it blocks cookies from this site), so it cannot be completed here. Nothing was connected."
            : "This browser started a different attempt at this connection, so this response cannot be used here. Nothing was connected.",
          "Start again from the authorization link you were given, in this browser, and press Continue.",
        ));
      }

      if (!(await consumeState(deps, session.id, state))) {
        return fail("state_mismatch", errorPage(400, "This sign-in could not be verified", "This response was already used.", RETRY));
      }

      // A GitHub App's installation comes back here too (its setup URL), carrying the installation instead of a code to exchange.
      if (authModeOf(def).connect === "install" && !params.get("error")) {
        return completeInstallation(deps, session, def, params, state, fail, clearedBindingCookie(deps, session.id));
      }

      const error = params.get("error");
      if (error) {
        if (error === "access_denied") {
          return fail("access_denied", errorPage(403, "Access was not allowed", `You declined access at ${def.displayName}, so nothing was connected.`, "Changed your mind? Open the link you were given again."));
        }
        return fail("provider_error", errorPage(400, `${def.displayName} reported an error`, `${def.displayName} did not grant access (${error.slice(0, 100)}). Nothing was connected.`, RETRY));
      }
      if (!params.get("code")) {
        return fail("provider_error", errorPage(400, "This sign-in could not be verified", "The response from the provider carries no authorization code.", RETRY));
      }

      const credentials = await deps.clientCredentials.resolve(session.deploymentId, def);
      if (!hasOAuthClient(credentials)) return fail("provider_error", errorPage(503, `${def.displayName} is not set up`, "The application's connection settings changed during sign-in.", RETRY));
      const provider = providerFor(deps.config, def, credentials, storedParams(session.params));
      const verifier = session.pkceVerifierEncrypted ? deps.box.open(session.pkceVerifierEncrypted) : undefined;

      const token = await exchangeCode(provider, deps.config, params, state, verifier).catch((err: unknown) => {
        if (err instanceof ProviderUnavailableError) {
          deps.logger.warn({ connector: def.name, reason: err.message }, "token endpoint unavailable");
          return fail("provider_error", errorPage(502, `${def.displayName} did not answer`, `We could not complete the sign-in with ${def.displayName}: its server failed to answer. Nothing was connected.`, RETRY));
        }
        if (err instanceof TokenResponseError || err instanceof oauth.OperationProcessingError || err instanceof oauth.AuthorizationResponseError) {
          deps.logger.info({ connector: def.name, code: (err as { code?: string }).code }, "code exchange refused");
          return fail("provider_error", errorPage(400, `${def.displayName} refused the sign-in`, `${def.displayName} did not accept the authorization. Nothing was connected.`, RETRY));
        }
        throw err;
      });

      const identity = await readIdentity(provider, token, deps.clock.now()).catch((err: unknown) => {
        deps.logger.warn({ connector: def.name, reason: (err as Error).message }, "identity read failed");
        return fail("identity_error", errorPage(502, `${def.displayName} did not answer`, `We could not read who you are at ${def.displayName}. Nothing was connected.`, RETRY));
      });

      const saved = await deps.store.save(deps.clock.now(), { ...session, params: storedParams(session.params) }, token, identity, def.oauth.scopes).catch((err: unknown) => {
        // The identity is made storable when read (oauth/provider.ts); whatever still fails to save
        // is answered with a page like every other failure here, never a bare 500.
        deps.logger.error({ err, connector: def.name }, "could not save a connection");
        // What the provider said about the user could not be stored: an identity problem to the operator.
        return fail("identity_error", errorPage(500, "This connection could not be saved", `We could not store your ${def.displayName} account. Nothing was connected.`, RETRY));
      });
      if (!saved) refuse(problemPage("completed"));
      return finishConnected(deps, session, def, saved, identity, clearedBindingCookie(deps, session.id));
    },
  };
}
