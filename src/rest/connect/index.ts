import type { Route } from "../../http/types.ts";
import type { ConnectFlowDeps } from "./flow.ts";
export type { ConnectFlowDeps };
import { getConnectPage, postConnectPage } from "./connectPage.ts";
import { getConsentPage, postConsentPage } from "./consentPage.ts";
import { getCredentialsPage, postCredentialsPage } from "./credentialsPage.ts";
import { getOAuthCallback } from "./oauthCallback.ts";

/** The hosted connect flow: start page, consent page, then the provider callback (OAuth) or the credentials form (API_KEY, BASIC). */
export function connectRoutes(deps: ConnectFlowDeps): Route[] {
  return [getConnectPage(deps), postConnectPage(deps), getConsentPage(deps), postConsentPage(deps), getOAuthCallback(deps), getCredentialsPage(deps), postCredentialsPage(deps)];
}
