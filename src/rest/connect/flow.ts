import type { LifecycleEvents } from "../../connections/lifecycle.ts";
import type { Resources } from "../../connections/resources/resources.ts";
import type { ConnectSettings } from "../../connections/connectSettings.ts";
import { storedParams } from "../../connectors/params.ts";
import { type RedirectErrorCode, redirectLocation } from "../../connections/redirects.ts";
import { findConnector } from "../../connectors/registry.ts";
import type { ConnectorDefinition, ExternalIdentity } from "../../connectors/types.ts";
import { credentialsOf, type CredentialChecker } from "../../connect/credentials.ts";
import { hasApp, hasOAuthClient, type ResolvedCredentials } from "../../credentials/clientCredentials.ts";
import { authModeOf } from "../../connections/authModes/index.ts";
import { installUrl } from "../../oauth/appInstallation.ts";
import { header, type HttpRequest, type HttpResponse } from "../../http/types.ts";
import { bindAttempt, bindingCookie, checkFormNonce, findSessionByToken, sessionProblem, type ConnectSessionRow, type SessionProblem } from "../../connect/sessions.ts";
import { authorizationUrl, oauth, providerFor } from "../../oauth/provider.ts";
import type { OAuthClientDeps } from "../../connect/deps.ts";
import type { ConnectionStore } from "../../connections/store/index.ts";
import { brand, errorPage, escapeHtml, page, refuse } from "./page.ts";

/** The connect flow's dependencies: the OAuth client's, where it may send end users back, and the lifecycle events a completed flow emits. */
export interface ConnectFlowDeps extends OAuthClientDeps {
  /** Stores the connection a completed flow made (connections/store/). */
  store: Pick<ConnectionStore, "save">;
  connectSettings: ConnectSettings;
  lifecycle: Pick<LifecycleEvents, "emitFor">;
  /** Resource params the auth-url named become the connection's first watched resource. */
  resources: Pick<Resources, "adopt">;
  /** API_KEY and BASIC: the declared test request that proves what the end user typed. */
  credentialCheck: CredentialChecker;
}

/** Everything a connect page needs about its session, once it is known to be usable. */
export interface LiveSession {
  session: ConnectSessionRow;
  def: ConnectorDefinition;
  /** Whose OAuth app (API_KEY and BASIC: none; `source` still says whether the operator configured the connector). */
  credentials: ResolvedCredentials;
  organizationName: string;
  /** The connect link's token (the pages' URLs). */
  token: string;
}

export const FORM_LIMIT_BYTES = 16 * 1024;

export function problemPage(problem: SessionProblem): HttpResponse {
  switch (problem) {
    case "unknown":
      return errorPage(404, "This link is not valid", "We could not find this connection link. It may have been mistyped or copied only in part.");
    case "expired":
      return errorPage(410, "This link has expired", "Connection links are valid for a limited time, and this one has run out.");
    case "completed":
      return errorPage(410, "This link was already used", "The account was connected with this link already. Each link works once.", "If you need to connect again, ask the application for a new link.", "info");
    case "cancelled":
      return errorPage(410, "This connection was cancelled", "The connection was cancelled, so nothing was shared.", "Changed your mind? Ask the application that sent you here for a new link.");
  }
}

/**
 * How the flow ends for the end user. With a `redirectUrl` on the session whose origin is still in
 * the deployment's allowed redirect origins (removing one takes effect at once, even for links
 * already handed out): a 303 back to the operator's app carrying the outcome. Otherwise `page`.
 */
export async function endFlow(
  deps: ConnectFlowDeps,
  session: Pick<ConnectSessionRow, "deploymentId" | "connector" | "account" | "redirectUrl">,
  result: { connectionId: string } | { error: RedirectErrorCode },
  page: HttpResponse,
): Promise<HttpResponse> {
  if (!session.redirectUrl) return page;
  const { allowedRedirectOrigins } = await deps.connectSettings.read(session.deploymentId);
  if (!allowedRedirectOrigins.includes(new URL(session.redirectUrl).origin)) return page;
  const { connector, account } = session;
  const location = redirectLocation(
    session.redirectUrl,
    "connectionId" in result ? { status: "connected", connector, account, connectionId: result.connectionId } : { status: "error", connector, account, error: result.error },
  );
  const cookie = page.headers?.["set-cookie"];
  // no-referrer: the operator's app must not learn the connect link (a capability) from the Referer.
  return { status: 303, headers: { location, "cache-control": "no-store", "referrer-policy": "no-referrer", ...(cookie ? { "set-cookie": cookie } : {}) } };
}

/** The flow ends in failure: `page`, or the 303 back to the operator's app carrying `error`. */
export async function refuseFlow(
  deps: ConnectFlowDeps,
  session: Pick<ConnectSessionRow, "deploymentId" | "connector" | "account" | "redirectUrl">,
  error: RedirectErrorCode,
  page: HttpResponse,
): Promise<never> {
  refuse(await endFlow(deps, session, { error }, page));
}

/** The session behind a connect link, usable for another step; otherwise throws the page saying why not. */
export async function loadLiveSession(deps: ConnectFlowDeps, token: string): Promise<LiveSession> {
  const session = await findSessionByToken(deps, token);
  const problem = sessionProblem(session, deps.clock.now());
  if (problem === "expired" && session) return refuseFlow(deps, session, "expired", problemPage(problem));
  if (problem || !session) refuse(problemPage(problem ?? "unknown"));
  const def = findConnector(session.connector);
  if (!def) refuse(errorPage(404, "This connector is no longer available", `The connector "${session.connector}" is not offered any more.`));
  const credentials = await deps.clientCredentials.resolve(session.deploymentId, def);
  // API_KEY and BASIC connectors need no OAuth client: the end user brings the credentials.
  if (!authModeOf(def).canConnect(credentials)) {
    refuse(errorPage(503, `${def.displayName} is not set up`, `The application has not finished setting up its ${def.displayName} connection.`, "Please tell the application's support team."));
  }
  const deployment = await deps.db.deployment.findUnique({ where: { id: session.deploymentId }, select: { organization: { select: { name: true } } } });
  if (!deployment) refuse(problemPage("unknown"));
  return { session, def, credentials, organizationName: deployment.organization.name, token };
}

/** The page for a session a new attempt could not be bound to: why it is no longer usable. */
async function refuseUnusable(deps: OAuthClientDeps, sessionId: string): Promise<never> {
  refuse(problemPage(sessionProblem(await deps.db.connectSession.findUnique({ where: { id: sessionId } }), deps.clock.now()) ?? "unknown"));
}

/**
 * Reads a connect form post: urlencoded only, a small body, a foreign Origin refused, and the
 * per-session nonce for this form checked. Returns the fields; otherwise throws the error page.
 */
export async function readConnectForm(deps: OAuthClientDeps, request: HttpRequest, live: LiveSession, purpose: string): Promise<URLSearchParams> {
  const origin = header(request, "origin");
  // Browsers send "null" under Referrer-Policy: no-referrer; the nonce is what proves the form is ours.
  if (origin && origin !== "null" && origin !== new URL(deps.config.publicUrl).origin) {
    refuse(errorPage(403, "This request was refused", "The form was sent from another website.", "Open the link you were given and press the button on that page."));
  }
  const type = (header(request, "content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    refuse(errorPage(415, "This request was refused", "The form was not sent the way this page sends it.", "Open the link you were given and press the button on that page."));
  }
  const form = new URLSearchParams((await request.body(FORM_LIMIT_BYTES)).toString("utf8"));
  if (!checkFormNonce(deps, live.session.id, purpose, form.get("nonce"))) {
    refuse(errorPage(403, "This request was refused", "The form could not be verified: it did not come from this page.", "Open the link you were given and press the button on that page."));
  }
  return form;
}

/**
 * A fresh state and PKCE verifier on the session, then the browser goes to the provider, carrying
 * the cookie that binds this attempt to it (checked at /oauth/callback). API_KEY and BASIC
 * connectors go to the credentials form instead.
 */
export async function redirectToProvider(deps: OAuthClientDeps, live: LiveSession): Promise<HttpResponse> {
  // API_KEY and BASIC: the form where the end user enters what the connector names.
  const { connect } = authModeOf(live.def);
  if (connect === "credentials") return seeOther(`/connect/${encodeURIComponent(live.token)}/credentials`);
  if (connect === "install") return redirectToInstall(deps, live);
  if (!hasOAuthClient(live.credentials)) throw new Error(`${live.def.name} has no OAuth client`);
  const provider = providerFor(deps.config, live.def, live.credentials, storedParams(live.session.params));
  const state = oauth.generateRandomState();
  const verifier = live.def.oauth.pkce ? oauth.generateRandomCodeVerifier() : undefined;
  if (!(await bindAttempt(deps, live.session.id, state, verifier))) {
    await refuseUnusable(deps, live.session.id);
  }
  const location = await authorizationUrl(provider, deps.config, state, verifier);
  return {
    status: 303,
    headers: {
      location,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "set-cookie": bindingCookie(deps, live.session.id, state, live.session.expiresAt),
    },
  };
}

/**
 * APP_INSTALLATION: the app's install page at the provider, with a fresh `state` bound to the
 * session and this browser like an OAuth attempt; the provider sends the browser back to
 * /oauth/callback (the app's setup URL) with the installation id and that state.
 */
async function redirectToInstall(deps: OAuthClientDeps, live: LiveSession): Promise<HttpResponse> {
  if (!hasApp(live.credentials)) throw new Error(`${live.def.name} has no app configured`);
  const state = oauth.generateRandomState();
  if (!(await bindAttempt(deps, live.session.id, state, undefined))) {
    await refuseUnusable(deps, live.session.id);
  }
  return {
    status: 303,
    headers: {
      location: installUrl(live.def, deps.config.connectorEnv, live.credentials.app.appSlug, state),
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "set-cookie": bindingCookie(deps, live.session.id, state, live.session.expiresAt),
    },
  };
}

export const seeOther = (location: string): HttpResponse => ({ status: 303, headers: { location, "cache-control": "no-store" } });

/**
 * A stored connection (every auth mode): its lifecycle event, then the done page — or, with a
 * redirectUrl, back to the operator's app with status=connected. `cookie` clears an OAuth
 * attempt's binding. The page names the end user's own identity at the provider, never the
 * operator's account id (an internal key the end user has no use for).
 */
export async function finishConnected(
  deps: ConnectFlowDeps,
  session: ConnectSessionRow,
  def: ConnectorDefinition,
  saved: { account: { id: string }; created: boolean },
  identity: ExternalIdentity,
  cookie?: string,
): Promise<HttpResponse> {
  await deps.resources.adopt(saved.account.id, def.name, session.params);
  await deps.lifecycle.emitFor(saved.account.id, saved.created ? "connection_created" : "connection_reauthorized");
  const deployment = await deps.db.deployment.findUnique({ where: { id: session.deploymentId }, select: { organization: { select: { name: true } } } });
  const done = page(
    200,
    `${def.displayName} connected`,
    `${brand(def.icon, def.displayName)}
<div class="status" aria-hidden="true">✓</div>
<h1>Your ${escapeHtml(def.displayName)} account is connected</h1>
<p>${escapeHtml(deployment?.organization.name ?? "The application")} can now use your ${escapeHtml(def.displayName)} account${identity.displayName ? ` <strong>${escapeHtml(identity.displayName)}</strong>` : ""}.</p>
<p class="note">You can close this window.</p>`,
  );
  return endFlow(deps, session, { connectionId: saved.account.id }, cookie ? { ...done, headers: { ...done.headers, "set-cookie": cookie } } : done);
}
