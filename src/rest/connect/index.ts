import type { Route } from "../../http/types.ts";
import type { ConnectFlowDeps } from "./flow.ts";
export type { ConnectFlowDeps };
import { getConnectPage, postConnectPage } from "./connectPage.ts";
import { getConsentPage, postConsentPage } from "./consentPage.ts";
import { getCredentialsPage, postCredentialsPage } from "./credentialsPage.ts";
import { getOAuthCallback } from "./oauthCallback.ts";
import { PageRefusal } from "./page.ts";

/** The hosted connect flow: start page, consent page, then the provider callback (OAuth) or the credentials form (API_KEY, BASIC). */
export function connectRoutes(deps: ConnectFlowDeps): Route[] {
  return [getConnectPage(deps), postConnectPage(deps), getConsentPage(deps), postConsentPage(deps), getOAuthCallback(deps), getCredentialsPage(deps), postCredentialsPage(deps)].map(answeringRefusals);
}

/** The one place a step's PageRefusal becomes the answer; every other error goes on to the HTTP layer. */
function answeringRefusals(route: Route): Route {
  return {
    ...route,
    handler: async (request) => {
      try {
        return await route.handler(request);
      } catch (err) {
        if (err instanceof PageRefusal) return err.page;
        throw err;
      }
    },
  };
}
