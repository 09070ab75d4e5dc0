import { credentialsOf } from "../../connect/credentials.ts";
import type { CredentialsDeclaration } from "../../connectors/credentials.ts";
import { storedParams } from "../../connectors/params.ts";
import type { HttpResponse, Route } from "../../http/types.ts";
import { formNonce } from "../../connect/sessions.ts";
import { type ConnectFlowDeps, finishConnected, type LiveSession, loadLiveSession, problemPage, readConnectForm } from "./flow.ts";
import { brand, errorPage, escapeHtml, page } from "./page.ts";

/**
 * GET /connect/:token/credentials — API_KEY and BASIC connectors: a form with the fields the
 * connector declares (label, help text, a link to where the provider shows them). Secret fields
 * are password inputs and are never echoed back.
 */
export function getCredentialsPage(deps: ConnectFlowDeps): Route {
  return {
    method: "GET",
    path: "/connect/:token/credentials",
    handler: async (request) => {
      const live = await loadLiveSession(deps, request.params.token);
      const decl = credentialsOf(live.def);
      if (!decl) return notAForm(live);
      return credentialsForm(deps, live, decl, 200);
    },
  };
}

/**
 * POST /connect/:token/credentials — the declared test request runs with what was typed; a refusal
 * or a field that does not fit is said on the form and nothing is stored; a right answer stores
 * the connection (the credential sealed) and ends the flow as OAuth does.
 */
export function postCredentialsPage(deps: ConnectFlowDeps): Route {
  return {
    method: "POST",
    path: "/connect/:token/credentials",
    handler: async (request) => {
      const live = await loadLiveSession(deps, request.params.token);
      const decl = credentialsOf(live.def);
      if (!decl) return notAForm(live);
      const form = await readConnectForm(deps, request, live, "credentials");
      const { def, session } = live;
      const kept = Object.fromEntries(decl.fields.filter((f) => !f.secret).map((f) => [f.name, form.get(f.name) ?? ""]));

      const result = await deps.credentialCheck.check(def, storedParams(session.params), form);
      if (!result.ok) {
        deps.logger.info({ connector: def.name, outcome: result.kind, ...(result.kind === "refused" ? { status: result.status } : {}) }, "connect credentials not accepted");
        if (result.kind === "invalid") return credentialsForm(deps, live, decl, 400, { fields: result.errors, kept });
        const what = decl.fields.length === 1 ? "key" : "credentials";
        const alert =
          result.kind === "refused"
            ? `The ${what} ${what === "key" ? "was" : "were"} refused by ${def.displayName}. Check ${what === "key" ? "it" : "them"} and try again.`
            : `${def.displayName} did not answer as expected (it ${result.kind === "unavailable" ? result.reason : "failed"}), so the ${what} could not be checked. Nothing was stored. Try again in a moment.`;
        return credentialsForm(deps, live, decl, result.kind === "refused" ? 400 : 502, { alert, kept });
      }

      const token = { accessToken: result.credential, scopes: [], raw: {} };
      let saved;
      try {
        saved = await deps.store.save(deps.clock.now(), { ...session, params: result.params }, token, result.identity, []);
      } catch (err) {
        deps.logger.error({ err, connector: def.name }, "could not save a connection");
        return errorPage(500, "This connection could not be saved", `We could not store your ${def.displayName} account. Nothing was connected.`, "Open the link you were given again to try once more.");
      }
      if (!saved) return problemPage("completed");
      return finishConnected(deps, session, def, saved, result.identity);
    },
  };
}

function notAForm(live: LiveSession): HttpResponse {
  return errorPage(404, "This page is not part of this connection", `${live.def.displayName} is connected by signing in, not with a form.`, "Open the link you were given again.");
}

function credentialsForm(
  deps: ConnectFlowDeps,
  live: LiveSession,
  decl: CredentialsDeclaration,
  status: number,
  problems: { fields?: Record<string, string>; alert?: string; kept?: Record<string, string> } = {},
): HttpResponse {
  const { def, session, organizationName } = live;
  const errors = problems.fields ?? {};
  const invalid = Object.keys(errors);
  const summary = problems.alert ?? (invalid.length > 0 ? `Please correct ${invalid.length === 1 ? "the field" : `the ${invalid.length} fields`} marked below.` : undefined);
  const inputs = decl.fields
    .map((field) => {
      const id = `field-${field.name}`;
      const error = errors[field.name];
      const described = [`${id}-help`, ...(error ? [`${id}-error`] : [])].join(" ");
      // A secret is never sent back to the browser, even when the form is shown again.
      const value = field.secret ? "" : (problems.kept?.[field.name] ?? "");
      return `<div class="field">
<label for="${id}">${escapeHtml(field.label)}</label>
<input id="${id}" name="${escapeHtml(field.name)}" type="${field.secret ? "password" : "text"}" required autocomplete="off" spellcheck="false" autocapitalize="off" value="${escapeHtml(value)}" aria-describedby="${described}"${error ? ' aria-invalid="true"' : ""}${invalid[0] === field.name ? " autofocus" : ""}>
<p class="help" id="${id}-help">${escapeHtml(field.help)}</p>
${error ? `<p class="field-error" id="${id}-error">${escapeHtml(error)}</p>` : ""}
</div>`;
    })
    .join("\n");
  return page(
    status,
    `${summary ? "Error: " : ""}Enter your ${def.displayName} credentials`,
    `${brand(def.icon, def.displayName)}
<h1>Enter your ${escapeHtml(def.displayName)} credentials</h1>
${summary ? `<div class="alert" role="alert">${escapeHtml(summary)}</div>` : ""}
<p>${escapeHtml(organizationName)} connects to ${escapeHtml(def.displayName)} for <strong>${escapeHtml(session.account)}</strong> with what you enter here. It is checked with ${escapeHtml(def.displayName)} first and then kept encrypted.</p>
<p><a href="${escapeHtml(decl.whereToFind)}" target="_blank" rel="noopener noreferrer">Where to find these in ${escapeHtml(def.displayName)} (opens in a new tab)</a></p>
<form method="post" action="/connect/${escapeHtml(encodeURIComponent(live.token))}/credentials" novalidate>
<input type="hidden" name="nonce" value="${escapeHtml(formNonce(deps, session.id, "credentials"))}">
${inputs}
<div class="actions"><button type="submit" class="primary">Connect</button></div>
</form>`,
  );
}
