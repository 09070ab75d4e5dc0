import { authModeOf } from "../../connections/authModes/index.ts";
import type { Route } from "../../http/types.ts";
import { cancelSession, formNonce } from "../../connect/sessions.ts";
import { type ConnectFlowDeps, endFlow, loadLiveSession, readConnectForm, redirectToProvider, seeOther } from "./flow.ts";
import { credentialsOf } from "../../connect/credentials.ts";
import { brand, escapeHtml, fieldList, page } from "./page.ts";
import { listedTriggers } from "../../forwarding/settings.ts";
import type { ConnectorDefinition } from "../../connectors/types.ts";

/** At most this many trigger names on the consent page; the rest are counted ("and 3 more"). */
export const CONSENT_TRIGGER_NAMES = 5;

/**
 * One short line: the events passed on, in words ("issue opened, push and 2 more"). A trigger the
 * connector no longer declares is shown by its name rather than dropped.
 */
function eventsLine(def: ConnectorDefinition, listed: string[], organizationName: string): string {
  // The connector's own order (its main triggers first), then any it no longer declares.
  const rank = (name: string) => { const i = def.triggers.findIndex((t) => t.name === name); return i < 0 ? Infinity : i; };
  const names = [...listed].sort((a, b) => rank(a) - rank(b)).map((name) => humanTriggerName(def.triggers.find((t) => t.name === name)?.displayName ?? name));
  const shown = names.slice(0, CONSENT_TRIGGER_NAMES);
  const more = names.length - shown.length;
  const words = more > 0 ? `${shown.join(", ")} and ${more} more` : shown.length > 1 ? `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}` : shown[0];
  return `<p class="note events">Events from your account are passed on to ${escapeHtml(organizationName)}: ${escapeHtml(words)}.</p>\n`;
}

/** "Issue opened" → "issue opened" inside a sentence; "CI job finished" keeps its acronym. */
function humanTriggerName(displayName: string): string {
  return /^[A-Z][A-Z]/.test(displayName) ? displayName : displayName.charAt(0).toLowerCase() + displayName.slice(1);
}

/**
 * GET /connect/:token/consent — shown when the deployment uses the service's default OAuth app:
 * the provider will name *this service* as the app, so we say plainly what is read and for whom.
 */
export function getConsentPage(deps: ConnectFlowDeps): Route {
  return {
    method: "GET",
    path: "/connect/:token/consent",
    handler: async (request) => {
      const live = await loadLiveSession(deps, request.params.token);
      const { session, def, organizationName } = live;
      const token = encodeURIComponent(request.params.token);
      // The operator's own app: the provider's consent screen names them, no need for ours.
      if (live.credentials.source === "operator") return seeOther(`/connect/${token}`);
      const fields = credentialsOf(def)?.fields;
      const described = fields
        ? [`Everything the ${fieldList(fields)} you enter next give access to at ${def.displayName}`]
        : authModeOf(def).consentItems(def);
      // Only what this deployment forwards for the connector (its Forwarding Trigger List), not
      // the connector's catalog: GitHub alone offers hundreds of triggers.
      const listed = await listedTriggers(deps.db, session.deploymentId, def.name);
      const events = listed.length > 0 ? eventsLine(def, listed, organizationName) : "";
      return page(
        200,
        `Allow access to ${def.displayName}`,
        `${brand(def.icon, def.displayName)}
<h1>Allow ${escapeHtml(organizationName)} to access your ${escapeHtml(def.displayName)} account?</h1>
<p>Switchyard connects ${escapeHtml(def.displayName)} on behalf of <strong>${escapeHtml(organizationName)}</strong>.${fields ? "" : ` ${escapeHtml(def.displayName)} will show Switchyard as the application asking.`}</p>
<h2 class="small-heading">What will be accessed</h2>
<ul class="scopes">${described.map((text) => `<li>${escapeHtml(text)}</li>`).join("")}</ul>
${events}<form method="post" action="/connect/${escapeHtml(token)}/consent">
<input type="hidden" name="nonce" value="${escapeHtml(formNonce(deps, session.id, "consent"))}">
<div class="actions">
<button type="submit" name="decision" value="continue" class="primary">Continue</button>
<button type="submit" name="decision" value="cancel" class="secondary">Cancel</button>
</div>
</form>
<p class="note after">You can revoke access at any time in your ${escapeHtml(def.displayName)} settings${fields ? ` by deleting or resetting the ${escapeHtml(fieldList(fields.filter((f) => f.secret)))}` : ""}.</p>`,
      );
    },
  };
}

/** POST /connect/:token/consent — Continue goes to the provider; Cancel ends the session, storing nothing (and sends the user back with error=access_denied). */
export function postConsentPage(deps: ConnectFlowDeps): Route {
  return {
    method: "POST",
    path: "/connect/:token/consent",
    handler: async (request) => {
      const live = await loadLiveSession(deps, request.params.token);
      const form = await readConnectForm(deps, request, live, "consent");
      const decision = form.get("decision");
      if (decision === "cancel") {
        await cancelSession(deps, live.session.id);
        return endFlow(deps, live.session, { error: "access_denied" }, page(
          200,
          "Connection cancelled",
          `${brand(live.def.icon, live.def.displayName)}
<h1>Connection cancelled</h1>
<p>Nothing was shared with ${escapeHtml(live.organizationName)}. You can close this window.</p>`,
        ));
      }
      if (decision !== "continue") return seeOther(`/connect/${encodeURIComponent(request.params.token)}/consent`);
      return redirectToProvider(deps, live);
    },
  };
}
