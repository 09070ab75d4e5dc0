/**
 * Where the end user's browser goes when the connect flow ends: the auth-url's `redirectUrl`, whose
 * origin must be one of the deployment's allowed redirect origins (Connect settings). Pure
 * functions: parsing an origin as an operator types it, checking a redirect URL, and adding the
 * outcome to it.
 *
 * What is accepted (docs/decisions.md "Redirects after the connect flow"): https on any host, and
 * plain http only on loopback (localhost, *.localhost, 127.0.0.1, [::1]) for development. No
 * userinfo (`https://app.example@evil.example` reads as one host and goes to another), no custom
 * or script schemes, at most 2,048 characters. Origins compare exactly after normalisation (the
 * host lower-cased, the default port dropped), so `https://app.example.com` does not admit
 * `https://evil.app.example.com` or `http://app.example.com`.
 */
import { isIP } from "node:net";

export const REDIRECT_URL_MAX_LENGTH = 2048;
export const MAX_ALLOWED_ORIGINS = 20;

/** The codes a failed flow sends back in `error=`. */
export type RedirectErrorCode = "access_denied" | "expired" | "provider_error" | "identity_error" | "state_mismatch";

export type FlowOutcome =
  | { status: "connected"; connector: string; account: string; connectionId: string }
  | { status: "error"; connector: string; account: string; error: RedirectErrorCode };

const LOOPBACK_HOSTS = /^(localhost|[a-z0-9-]+\.localhost|127\.0\.0\.1|\[::1\])$/;

type Parsed = { ok: true; url: URL } | { ok: false; message: string };

/** An absolute http(s) URL without userinfo, over http only on loopback. */
function parseWebUrl(value: string, what: string): Parsed {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, message: `${what} must be an absolute URL such as https://app.example.com.` };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false, message: `${what} must use https (${url.protocol} is not allowed).` };
  if (url.username || url.password) return { ok: false, message: `${what} must not contain a user name or password (user@host).` };
  if (url.protocol === "http:" && !LOOPBACK_HOSTS.test(url.hostname)) {
    return { ok: false, message: `${what} must use https; plain http is allowed only for localhost.` };
  }
  return { ok: true, url };
}

/**
 * An origin as an operator types it, normalised (`HTTPS://App.Example.com:443/` → `https://app.example.com`),
 * or why it is not one.
 */
export function normaliseOrigin(value: string): { ok: true; origin: string } | { ok: false; message: string } {
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > 255) return { ok: false, message: `"${trimmed.slice(0, 80)}" is not an origin: give scheme://host[:port].` };
  const parsed = parseWebUrl(trimmed, `The origin "${trimmed}"`);
  if (!parsed.ok) return parsed;
  const { url } = parsed;
  if ((url.pathname !== "/" && url.pathname !== "") || url.search || url.hash || /[?#]/.test(trimmed)) {
    return { ok: false, message: `The origin "${trimmed}" must be only scheme://host[:port], without a path, query or fragment.` };
  }
  // Each origin is matched exactly: a wildcard would be stored as a host no browser ever has (and
  // suggest a pattern that is not checked); other non-DNS names are refused alike.
  const host = url.hostname;
  if (trimmed.includes("*") || host.includes("*")) {
    return { ok: false, message: `allowedRedirectOrigins: "${trimmed}" has a wildcard, which is not supported: list each origin exactly (https://app.example.com).` };
  }
  if (!isIP(host.replace(/^\[|\]$/g, "")) && !host.split(".").every((label) => DNS_LABEL.test(label))) {
    return { ok: false, message: `allowedRedirectOrigins: "${trimmed}" is not a DNS host name (letters, digits and hyphens in dot-separated labels).` };
  }
  return { ok: true, origin: url.origin };
}

/** A DNS label as a URL parser writes it (lower case, punycode for other scripts). */
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The redirect URL when it may be used with these allowed origins, else why not (naming the setting). */
export function checkRedirectUrl(value: string, allowedOrigins: readonly string[]): Parsed {
  if (value.length > REDIRECT_URL_MAX_LENGTH) return { ok: false, message: `redirectUrl must be at most ${REDIRECT_URL_MAX_LENGTH} characters.` };
  const parsed = parseWebUrl(value, "redirectUrl");
  if (!parsed.ok) return parsed;
  if (!allowedOrigins.includes(parsed.url.origin)) {
    return {
      ok: false,
      message: `redirectUrl's origin ${parsed.url.origin} is not in this deployment's allowedRedirectOrigins: add it in the console (deployment Settings → Connect settings) or with saveConnectSettings.`,
    };
  }
  return parsed;
}

/** The redirect URL with the outcome added to its own query (its other parameters and fragment kept). */
export function redirectLocation(redirectUrl: string, outcome: FlowOutcome): string {
  const url = new URL(redirectUrl);
  const { status, connector, account } = outcome;
  const added: Record<string, string> =
    outcome.status === "connected" ? { status, connector, account, connectionId: outcome.connectionId } : { status, connector, account, error: outcome.error };
  // Ours replace same-named parameters of the operator's URL: the app must read what happened, not a stale value.
  for (const [name, value] of Object.entries(added)) url.searchParams.set(name, value);
  return url.toString();
}
