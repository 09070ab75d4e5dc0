/**
 * Drives the hosted connect flow over plain HTTP, the way a browser would but without one:
 * auth-url → GET /connect/:token → POST Continue → (consent page → POST Continue) → the fake
 * provider's authorize page → Approve → GET /oauth/callback → done page. Redirects are followed by
 * hand so every hop can be asserted. `connectAccount` is the one-line version for other stories.
 */
import { expect } from "vitest";
import { exampleValues } from "../../src/connectors/params.ts";
import { findConnector } from "../../src/connectors/registry.ts";
import { graphql } from "../generated/gql.ts";
import type { Operator } from "./operators.ts";
import { ok, type TestApp } from "./testApp.ts";

export const DeploymentConnectedAccounts = graphql(`
  query DeploymentConnectedAccounts($id: ID!) {
    deployment(id: $id) {
      id
      connectedAccounts { id connector account externalId status scopes createdAt lastRefreshedAt }
    }
  }
`);

export interface ConnectedAccountView {
  id: string;
  connector: string;
  account: string;
  externalId: string;
  status: "ACTIVE" | "REAUTH_REQUIRED" | "DISCONNECTED";
  scopes: string[];
  createdAt: string;
  lastRefreshedAt?: string | null;
}

/** One HTTP answer of the walk, body read. */
export interface Hop {
  method: string;
  url: string;
  status: number;
  location: string | null;
  contentType: string | null;
  body: string;
}

/** A form found in a page: its absolute action and its hidden fields. */
export interface PageForm {
  action: string;
  fields: Record<string, string>;
}

/** The fake provider as far as the walk needs it (every fake in test/helpers/fakeProviders fits). */
export interface ProviderLike {
  url: string;
}

/** More auth-url query parameters: `redirectUrl`, `params[<name>]`. */
export type AuthUrlExtras = Record<string, string>;

export async function requestAuthUrl(app: TestApp, apiKey: string | undefined, connector: string, account?: string, extras: AuthUrlExtras = {}): Promise<Response> {
  const search = new URLSearchParams(account === undefined ? {} : { account });
  for (const [name, value] of Object.entries(extras)) search.append(name, value);
  const query = search.size ? `?${search}` : "";
  return fetch(`${app.url}/api/v1/connector/service/${encodeURIComponent(connector)}/auth-url${query}`, {
    headers: apiKey ? { "x-api-key": apiKey } : {},
  });
}

export async function getAuthUrl(app: TestApp, apiKey: string, connector: string, account: string, extras: AuthUrlExtras = {}): Promise<string> {
  const response = await requestAuthUrl(app, apiKey, connector, account, extras);
  const body = (await response.json()) as { authUrl?: string };
  if (response.status !== 200 || !body.authUrl) throw new Error(`auth-url answered ${response.status}: ${JSON.stringify(body)}`);
  return body.authUrl;
}

/**
 * The cookies one browser holds, as far as the connect flow needs: stored from Set-Cookie with
 * their Path, sent back to matching paths of the same origin, dropped at Max-Age=0.
 */
export class CookieJar {
  private readonly cookies = new Map<string, { origin: string; path: string; value: string }>();

  store(url: string, response: Response): void {
    const { origin } = new URL(url);
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";").map((part) => part.trim());
      const [name, ...value] = pair.split("=");
      const attribute = (key: string) => attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const key = `${origin} ${name}`;
      if (attribute("max-age") === "0") this.cookies.delete(key);
      else this.cookies.set(key, { origin, path: attribute("path") ?? "/", value: value.join("=") });
    }
  }

  header(url: string): string | undefined {
    const { origin, pathname } = new URL(url);
    const sent = [...this.cookies.entries()]
      .filter(([, c]) => c.origin === origin && (pathname === c.path || pathname.startsWith(c.path.endsWith("/") ? c.path : `${c.path}/`)))
      .map(([key, c]) => `${key.slice(origin.length + 1)}=${c.value}`);
    return sent.length ? sent.join("; ") : undefined;
  }
}

/**
 * One request of the walk, redirects not followed. With a `jar`, cookies are sent and kept as a
 * browser would (the connect flow binds its OAuth attempt to the browser with a cookie).
 */
export async function hop(method: "GET" | "POST", url: string, form?: Record<string, string>, headers: Record<string, string> = {}, jar?: CookieJar): Promise<Hop> {
  const cookie = jar?.header(url);
  const response = await fetch(url, {
    method,
    redirect: "manual",
    headers: { ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}), ...(cookie ? { cookie } : {}), ...headers },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  jar?.store(url, response);
  const location = response.headers.get("location");
  return {
    method,
    url,
    status: response.status,
    location: location ? new URL(location, url).toString() : null,
    contentType: response.headers.get("content-type"),
    body: await response.text(),
  };
}

const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/** The first POST form of a page (its action resolved against the page's URL) and its hidden inputs. */
export function formIn(page: Hop): PageForm {
  const match = /<form[^>]*method="post"[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(page.body);
  if (!match) throw new Error(`no form on ${page.url} (HTTP ${page.status}):\n${page.body.slice(0, 500)}`);
  const fields: Record<string, string> = {};
  for (const input of match[2].matchAll(/<input[^>]*type="hidden"[^>]*>/gi)) {
    const name = /name="([^"]*)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1] ?? "";
    if (name) fields[decode(name)] = decode(value);
  }
  return { action: new URL(decode(match[1]), page.url).toString(), fields };
}

/** Submits a page's form (formIn) with its hidden fields, `values` laid over them. */
export function submitForm(page: Hop, values: Record<string, string> = {}): Promise<Hop> {
  const { action, fields } = formIn(page);
  return hop("POST", action, { ...fields, ...values });
}

/**
 * An API-key or Basic connector's hosted flow as an end user walks it, up to the credentials form:
 * auth-url → Continue → consent (the deployment has not configured the connector) → the form page.
 * Throws, naming the step, when a page is not the expected one.
 */
export async function openCredentialsForm(app: TestApp, apiKey: string, connector: string, account: string, extras: AuthUrlExtras = {}): Promise<Hop> {
  const redirectTo = (page: Hop, ending: string): string => {
    if (!page.location || !new URL(page.location).pathname.endsWith(ending)) throw new Error(`${page.url} (HTTP ${page.status}) did not redirect to …${ending}: ${page.location}`);
    return page.location;
  };
  const start = await hop("GET", await getAuthUrl(app, apiKey, connector, account, extras));
  if (start.status !== 200) throw new Error(`the Continue page answered ${start.status}`);
  const consent = await hop("GET", redirectTo(await submitForm(start), "/consent"));
  if (consent.status !== 200) throw new Error(`the consent page answered ${consent.status}`);
  return hop("GET", redirectTo(await submitForm(consent, { decision: "continue" }), "/credentials"));
}

export interface WalkOptions {
  /** What to press on our consent page, if it is shown. Default "continue". */
  consent?: "continue" | "cancel";
  /** What to press on the provider's authorize page. Default "approve". */
  decision?: "approve" | "deny";
  /** Stop once the browser is at the provider (to tamper with the callback in a test). */
  stopAtProvider?: boolean;
  /** The browser's cookies; a fresh jar (a new browser) when omitted. */
  jar?: CookieJar;
}

export interface Walk {
  hops: Hop[];
  /** Whether our consent page was shown. */
  consentShown: boolean;
  /** The provider authorize URL the flow redirected to (undefined when it never got there). */
  providerAuthorizeUrl?: string;
  /** The callback URL the provider sent the browser to. */
  callbackUrl?: string;
  /** The last answer (the done page, or an error page). */
  final: Hop;
  /** The cookies of the browser that walked (pass it to `hop` to continue as that browser). */
  jar: CookieJar;
}

/**
 * Walks the flow from an authUrl. Returns early with the page in `final` whenever an answer is not
 * the expected next step (an error page), so tests can assert on it.
 */
export async function walkConnectFlow(authUrl: string, options: WalkOptions = {}): Promise<Walk> {
  const hops: Hop[] = [];
  const jar = options.jar ?? new CookieJar();
  const record = (h: Hop) => (hops.push(h), h);
  const walk = (final: Hop, extra: Partial<Walk> = {}): Walk => ({ hops, consentShown: false, final, jar, ...extra });
  const go = (method: "GET" | "POST", url: string, form?: Record<string, string>) => hop(method, url, form, {}, jar);

  const start = record(await go("GET", authUrl));
  if (start.status !== 200) return walk(start);
  const startForm = formIn(start);
  let next = record(await go("POST", startForm.action, startForm.fields));
  if (next.status !== 303 || !next.location) return walk(next);

  let consentShown = false;
  if (new URL(next.location).pathname.endsWith("/consent")) {
    const consent = record(await go("GET", next.location));
    if (consent.status !== 200) return walk(consent, { consentShown });
    consentShown = true;
    const consentForm = formIn(consent);
    next = record(await go("POST", consentForm.action, { ...consentForm.fields, decision: options.consent ?? "continue" }));
    if (next.status !== 303 || !next.location) return walk(next, { consentShown });
  }

  const providerAuthorizeUrl = next.location;
  if (options.stopAtProvider) return walk(next, { consentShown, providerAuthorizeUrl });
  const authorize = record(await go("GET", providerAuthorizeUrl));
  let toCallback = authorize;
  if (authorize.status === 200) {
    const approveForm = formIn(authorize);
    toCallback = record(await go("POST", approveForm.action, { ...approveForm.fields, decision: options.decision ?? "approve" }));
  }
  if (toCallback.status !== 302 || !toCallback.location) return walk(toCallback, { consentShown, providerAuthorizeUrl });
  const callbackUrl = toCallback.location;
  const done = record(await go("GET", callbackUrl));
  return walk(done, { consentShown, providerAuthorizeUrl, callbackUrl });
}

export async function connectedAccounts(app: TestApp, operator: Pick<Operator, "token" | "deploymentId">, deploymentId = operator.deploymentId) {
  const { deployment } = ok(await app.gql(DeploymentConnectedAccounts, { id: deploymentId }, { token: operator.token }));
  return (deployment?.connectedAccounts ?? []) as ConnectedAccountView[];
}

/**
 * Connects `account` for the operator's development deployment through the whole hosted flow
 * against the fake provider (which must be the one the app's CONNECTOR_<NAME>_* variables point
 * at), and returns the ConnectedAccount as GraphQL shows it.
 */
export async function connectAccount(
  app: TestApp,
  operator: Pick<Operator, "token" | "apiKey" | "deploymentId">,
  options: { connector: string; account: string; provider: ProviderLike; params?: Record<string, string> },
): Promise<ConnectedAccountView> {
  // Connectors that need connection parameters get their declared examples unless the story names others.
  const params = options.params ?? exampleValues(findConnector(options.connector)?.declaration.params ?? []);
  const extras = Object.fromEntries(Object.entries(params).map(([name, value]) => [`params[${name}]`, value]));
  const authUrl = await getAuthUrl(app, operator.apiKey, options.connector, options.account, extras);
  const walk = await walkConnectFlow(authUrl);
  if (walk.final.status !== 200 || !walk.callbackUrl) {
    throw new Error(`the connect flow ended with HTTP ${walk.final.status} at ${walk.final.url}:\n${walk.final.body.slice(0, 800)}`);
  }
  expect(walk.providerAuthorizeUrl?.startsWith(options.provider.url)).toBe(true);
  const account = (await connectedAccounts(app, operator)).find((a) => a.connector === options.connector && a.account === options.account);
  if (!account) throw new Error(`the flow finished but no ${options.connector} account "${options.account}" is listed`);
  return account;
}
