import type { Route } from "../../http/types.ts";
import { formNonce } from "../../oauth/connectSessions.ts";
import { type ConnectFlowDeps, loadLiveSession, readConnectForm, redirectToProvider, seeOther } from "./flow.ts";
import { credentialsOf } from "../../connect/credentials.ts";
import { brand, escapeHtml, fieldList, page } from "./page.ts";

/** GET /connect/:token — who is asking to connect what, and a Continue button. */
export function getConnectPage(deps: ConnectFlowDeps): Route {
  return {
    method: "GET",
    path: "/connect/:token",
    handler: async (request) => {
      const live = await loadLiveSession(deps, request.params.token);
      const { session, def, organizationName } = live;
      const action = `/connect/${encodeURIComponent(request.params.token)}`;
      const fields = credentialsOf(def)?.fields;
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
<p class="note">${fields ? `You will enter your ${escapeHtml(fieldList(fields))}, which are checked with ${escapeHtml(def.displayName)} before anything is kept.` : def.authMode === "APP_INSTALLATION" ? `You will install the app at ${escapeHtml(def.displayName)} and choose which repositories it may access.` : `You will sign in at ${escapeHtml(def.displayName)} and choose whether to allow access.`} This link expires at ${escapeHtml(session.expiresAt.toISOString().replace("T", " ").slice(0, 16))} UTC.</p>`,
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
