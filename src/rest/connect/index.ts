import type { LifecycleEvents } from "../../connections/lifecycle.ts";
import type { Route } from "../../http/types.ts";
import type { OAuthClientDeps } from "../../oauth/deps.ts";
import { getConnectPage, postConnectPage } from "./connectPage.ts";
import { getConsentPage, postConsentPage } from "./consentPage.ts";
import { getOAuthCallback } from "./oauthCallback.ts";

/** The connect flow's dependencies: the OAuth client's, and the lifecycle events a completed flow emits. */
export interface ConnectFlowDeps extends OAuthClientDeps {
  lifecycle: Pick<LifecycleEvents, "emitFor">;
}

/** The hosted connect flow: start page, consent page, provider callback. */
export function connectRoutes(deps: ConnectFlowDeps): Route[] {
  return [getConnectPage(deps), postConnectPage(deps), getConsentPage(deps), postConsentPage(deps), getOAuthCallback(deps)];
}
