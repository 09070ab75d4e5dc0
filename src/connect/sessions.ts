import { createHmac } from "node:crypto";
import { randomToken, safeEqual, sha256Hex } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import type { OAuthDeps } from "./deps.ts";

/**
 * ConnectSession: what stands behind an authorization URL. The URL's token is the capability; only
 * its sha256 is stored. A session is usable until it expires, completes (single use) or is cancelled.
 */
export type ConnectSessionRow = NonNullable<Awaited<ReturnType<Db["connectSession"]["findUnique"]>>>;

export type SessionProblem = "unknown" | "expired" | "completed" | "cancelled";

/** `redirectUrl` and `params` were checked by the caller (the auth-url route). */
export async function createConnectSession(
  deps: OAuthDeps,
  deploymentId: string,
  connector: string,
  account: string,
  extra: { redirectUrl?: string; params?: Record<string, string> } = {},
) {
  const token = randomToken(32);
  const expiresAt = new Date(deps.clock.now().getTime() + deps.config.connectUrlTtlSeconds * 1000);
  await deps.db.connectSession.create({
    data: { tokenHash: sha256Hex(token), deploymentId, connector, account, expiresAt, redirectUrl: extra.redirectUrl ?? null, params: extra.params ?? {} },
  });
  return { token, expiresAt, authUrl: `${deps.config.publicUrl}/connect/${token}` };
}

export async function findSessionByToken(deps: OAuthDeps, token: string): Promise<ConnectSessionRow | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  return deps.db.connectSession.findUnique({ where: { tokenHash: sha256Hex(token) } });
}

/** Why a session can no longer be used, or undefined when it can. */
export function sessionProblem(session: ConnectSessionRow | null, now: Date): SessionProblem | undefined {
  if (!session) return "unknown";
  if (session.completedAt) return "completed";
  if (session.cancelledAt) return "cancelled";
  if (session.expiresAt <= now) return "expired";
  return undefined;
}

/**
 * The hidden field every connect form carries: an HMAC of the session id and the form's purpose
 * under a key derived from ENCRYPTION_KEY. Nothing to store, and another page (or another
 * session's page) cannot produce it.
 */
export function formNonce(deps: OAuthDeps, sessionId: string, purpose: string): string {
  const key = createHmac("sha256", deps.config.encryptionKey).update("switchyard connect form nonce").digest();
  return createHmac("sha256", key).update(`${sessionId}:${purpose}`).digest("base64url");
}

export function checkFormNonce(deps: OAuthDeps, sessionId: string, purpose: string, presented: string | null): boolean {
  return presented !== null && safeEqual(presented, formNonce(deps, sessionId, purpose));
}

/**
 * Binds an authorization attempt to the browser that pressed Continue. Without it the provider's
 * authorize URL (which carries the state) completes the connection in *any* browser, so someone
 * could skip the connect and consent pages by handing a victim that URL.
 *
 * The cookie is named per session (two tabs can connect two accounts at once) and scoped to the
 * callback path; its value is an HMAC of the session and the attempt's state under a key derived
 * from ENCRYPTION_KEY, so nothing more is stored and a new attempt invalidates the old cookie.
 * SameSite=Lax still sends it on the provider's top-level redirect back to us.
 */
export const CALLBACK_PATH = "/oauth/callback";
const BINDING_COOKIE_PREFIX = "sy_connect_";

function browserBinding(deps: OAuthDeps, sessionId: string, state: string): string {
  const key = createHmac("sha256", deps.config.encryptionKey).update("switchyard connect browser binding").digest();
  return createHmac("sha256", key).update(`${sessionId}:${state}`).digest("base64url");
}

export function bindingCookie(deps: OAuthDeps, sessionId: string, state: string, expiresAt: Date): string {
  const maxAge = Math.max(1, Math.ceil((expiresAt.getTime() - deps.clock.now().getTime()) / 1000));
  const secure = deps.config.publicUrl.startsWith("https:") ? "; Secure" : "";
  return `${BINDING_COOKIE_PREFIX}${sessionId}=${browserBinding(deps, sessionId, state)}; Path=${CALLBACK_PATH}; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
}

/** Removes the session's binding cookie once the callback has been answered for good. */
export function clearedBindingCookie(deps: OAuthDeps, sessionId: string): string {
  const secure = deps.config.publicUrl.startsWith("https:") ? "; Secure" : "";
  return `${BINDING_COOKIE_PREFIX}${sessionId}=; Path=${CALLBACK_PATH}; HttpOnly; SameSite=Lax; Max-Age=0${secure}`;
}

/** Whether the request's cookies carry this attempt's binding: "missing" (no cookie for the session) or "mismatch". */
export function checkBrowserBinding(deps: OAuthDeps, sessionId: string, state: string, cookieHeader: string | undefined): "ok" | "missing" | "mismatch" {
  const name = `${BINDING_COOKIE_PREFIX}${sessionId}`;
  let presented: string | undefined;
  for (const part of (cookieHeader ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) presented = rest.join("=");
  }
  if (!presented) return "missing";
  return safeEqual(presented, browserBinding(deps, sessionId, state)) ? "ok" : "mismatch";
}

/** Starts (or restarts) an authorization attempt: a fresh state and PKCE verifier replace any earlier ones. */
export async function bindAttempt(deps: OAuthDeps, sessionId: string, state: string, codeVerifier: string | undefined): Promise<boolean> {
  const { count } = await deps.db.connectSession.updateMany({
    where: { id: sessionId, completedAt: null, cancelledAt: null, expiresAt: { gt: deps.clock.now() } },
    data: { state, pkceVerifierEncrypted: codeVerifier ? deps.box.seal(codeVerifier) : null },
  });
  return count === 1;
}

export async function cancelSession(deps: OAuthDeps, sessionId: string): Promise<boolean> {
  const { count } = await deps.db.connectSession.updateMany({
    where: { id: sessionId, completedAt: null, cancelledAt: null },
    data: { cancelledAt: deps.clock.now(), state: null, pkceVerifierEncrypted: null },
  });
  return count === 1;
}

/**
 * Takes the state out of the session so the same callback can never be processed twice (a replayed
 * or concurrent callback finds nothing). True when this caller won.
 */
export async function consumeState(deps: OAuthDeps, sessionId: string, state: string): Promise<boolean> {
  const { count } = await deps.db.connectSession.updateMany({
    where: { id: sessionId, state, completedAt: null, cancelledAt: null },
    data: { state: null },
  });
  return count === 1;
}
