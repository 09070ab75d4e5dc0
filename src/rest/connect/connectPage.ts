import { authModeOf } from "../../connections/authModes/index.ts";
import type { Route } from "../../http/types.ts";
import { formNonce } from "../../connect/sessions.ts";
import { type ConnectFlowDeps, loadLiveSession, readConnectForm, redirectToProvider, seeOther } from "./flow.ts";
import { credentialsOf } from "../../connect/credentials.ts";
import { brand, escapeHtml, page } from "./page.ts";

/** GET /connect/:token — who is asking to connect what, and a Continue button. */
export function getConnectPage(deps: ConnectFlowDeps): Route {
  return {
    method: "GET",
    path: "/connect/:token",
    handler: async (request) => {
      const live = await loadLiveSession(deps, request.params.token);
      const { session, def, organizationName } = live;
      const action = `/connect/${encodeURIComponent(request.params.token)}`;
      return page(
        200,
        `Connect ${def.displayName}`,
        `${brand(def.icon, def.displayName)}
<h1>Connect your ${escapeHtml(def.displayName)} account</h1>
<p><strong>${escapeHtml(organizationName)}</strong> asks you to connect ${escapeHtml(def.displayName)}. ${escapeHtml(def.description)}</p>
<dl>
<dt>Service</dt><dd>${escapeHtml(def.displayName)}</dd>
<dt>Account</dt><dd>${escapeHtml(session.account)}</dd>
<dt>Requested by</dt><dd>${escapeHtml(organizationName)}</dd>
</dl>
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="nonce" value="${escapeHtml(formNonce(deps, session.id, "start"))}">
<div class="actions"><button type="submit" class="primary">Continue</button></div>
</form>
<p class="note">${escapeHtml(authModeOf(def).connectNote(def))} This link expires at ${escapeHtml(session.expiresAt.toISOString().replace("T", " ").slice(0, 16))} UTC.</p>`,
      );
    },
  };
}

/**
 * POST /connect/:token — Continue. With the service's default OAuth app (API_KEY and BASIC: while
 * the operator has not configured the connector for the deployment) the consent page comes next;
 * otherwise the browser goes straight to the provider (or the credentials form).
 */
export function postConnectPage(deps: ConnectFlowDeps): Route {
  return {
    method: "POST",
    path: "/connect/:token",
    handler: async (request) => {
      const live = await loadLiveSession(deps, request.params.token);
      const form = await readConnectForm(deps, request, live, "start");
      if (live.credentials.source === "service") return seeOther(`/connect/${encodeURIComponent(request.params.token)}/consent`);
      return redirectToProvider(deps, live);
    },
  };
}
