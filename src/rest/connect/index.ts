import type { Route } from "../../http/types.ts";
import type { Services } from "../../services.ts";
import { getConnectPage, postConnectPage } from "./connectPage.ts";
import { getConsentPage, postConsentPage } from "./consentPage.ts";
import { getOAuthCallback } from "./oauthCallback.ts";

/** The hosted connect flow: start page, consent page, provider callback. */
export function connectRoutes(services: Services): Route[] {
  return [getConnectPage(services), postConnectPage(services), getConsentPage(services), postConsentPage(services), getOAuthCallback(services)];
}
