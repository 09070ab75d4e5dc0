/**
 * The provider side of a subscription, from the declaration alone: create, renew and delete are
 * the declared calls with their templates filled, the answer read at the declared paths. Nothing
 * here knows a provider by name.
 */
import { randomUUID } from "node:crypto";
import { type ApiDeclaration, underBase, withCredential } from "../connectors/api.ts";
import { asRecord, asString, valueAt } from "../connectors/json.ts";
import { pathWithQuery } from "../connectors/request.ts";
import type { SubscriptionCall, SubscriptionDeclaration } from "../connectors/subscription.ts";
import { REFUSED_PRIVATE_ADDRESS, refusedByGuard, refusedLiteral } from "../net/ssrf.ts";
import type { LazyAgent } from "../net/undici.ts";

/** A provider call that did not answer 2xx (`status` 0: unreachable or timed out). */
export class SubscriptionCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
  /** The provider no longer knows the subscription: it is re-created (renew) or already gone (delete). */
  get gone() {
    return this.status === 404 || this.status === 410;
  }
}

export type TemplateVars = Record<string, string | string[]>;

/** `{name}`, or `{first|second}`: the first of those that has a value (Trello's `{board|externalId}`). */
const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*(?:\|[A-Za-z][A-Za-z0-9_]*)*)\}/g;

function fill(text: string, vars: TemplateVars, encode: boolean): string {
  return text.replace(PLACEHOLDER, (whole, names: string) => {
    const name = names.split("|").find((n) => vars[n] !== undefined) ?? names;
    const value = vars[name];
    if (value === undefined) throw new Error(`the template names {${names}}, which has no value here`);
    const joined = Array.isArray(value) ? value.join(",") : value;
    return encode ? encodeURIComponent(joined) : joined;
  });
}

/**
 * Fills every string of a body template; a value that is exactly "{events[]}" becomes the events
 * as a JSON array, exactly "{providerId:number}" a JSON number (Jira's webhook ids), exactly
 * "{events:includes:push_events}" a JSON boolean: whether that event is wanted (GitLab's and SendGrid's per-event flags).
 */
export function fillBody(template: unknown, vars: TemplateVars): unknown {
  if (typeof template === "string") {
    const list = /^\{([A-Za-z][A-Za-z0-9_]*)\[\]\}$/.exec(template);
    if (list) return [vars[list[1]] ?? []].flat();
    const flag = /^\{events:includes:([^{}]+)\}$/.exec(template);
    if (flag) return [vars.events ?? []].flat().includes(flag[1]);
    const number = /^\{([A-Za-z][A-Za-z0-9_]*):number\}$/.exec(template);
    if (number) {
      const value = Number(fill(`{${number[1]}}`, vars, false));
      if (!Number.isFinite(value)) throw new Error(`the template's {${number[1]}} is not a number`);
      return value;
    }
    return fill(template, vars, false);
  }
  if (Array.isArray(template)) return template.map((item) => fillBody(item, vars));
  if (template && typeof template === "object") return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, fillBody(value, vars)]));
  return template;
}

export interface CallTarget {
  /** The connector's api section: its auth style and required headers. */
  api: ApiDeclaration;
  /** The connection's API base (connectors/connectionApi.ts: per tenant where the connector declares one). */
  base: URL;
  accessToken: string;
  timeoutMs: number;
  /** The base's host is one the connection's end user named (a `hostname` parameter): refused when it resolves to a private address. */
  guardHost?: boolean;
  /** The guarded agent a tenant's host is dialled through (src/net/ssrf.ts), with guardHost. */
  tenantHosts?: LazyAgent;
}

/** A call as sent: a declared one, or a hook's request (no query or headers of its own). */
type Call = Omit<SubscriptionCall, "query" | "headers"> & Partial<Pick<SubscriptionCall, "query" | "headers">>;

/** Sends one declared call; the parsed JSON answer ({} when empty); SubscriptionCallError unless 2xx. */
export async function callProvider(call: Call, vars: TemplateVars, target: CallTarget, form?: Record<string, string>): Promise<Record<string, unknown>> {
  const query = Object.fromEntries(Object.entries(call.query ?? {}).map(([name, value]) => [name, fill(value, vars, false)]));
  const path = pathWithQuery(fill(call.path, vars, true), query);
  const body = form ? new URLSearchParams(form).toString() : call.body === undefined ? undefined : JSON.stringify(fillBody(call.body, vars));
  const contentType = form ? "application/x-www-form-urlencoded" : "application/json";
  let response: Response;
  try {
    const { url, headers } = withCredential(
      target.api,
      underBase(target.base, path),
      { accept: "application/json", "user-agent": "Switchyard", ...(body === undefined ? {} : { "content-type": contentType }), ...call.headers },
      target.accessToken,
    );
    // A tenant's host: dialled only at the address the guard checked (src/net/ssrf.ts).
    const refused = target.guardHost ? refusedLiteral(url) : undefined;
    if (refused) throw new SubscriptionCallError(`${call.method} ${call.path.split("?")[0]}: ${refused}`, 0);
    const init: RequestInit = { method: call.method, headers: headers as Record<string, string>, body, redirect: "manual", signal: AbortSignal.timeout(target.timeoutMs) };
    response = await (target.guardHost && target.tenantHosts ? target.tenantHosts.fetch(url, init) : fetch(url, init));
  } catch (error) {
    const why = refusedByGuard(error) ? REFUSED_PRIVATE_ADDRESS : (error as Error).message;
    throw new SubscriptionCallError(`${call.method} ${call.path.split("?")[0]}: ${why}`, 0);
  }
  const text = await response.text();
  if (!response.ok) throw new SubscriptionCallError(`${call.method} ${call.path.split("?")[0]} answered HTTP ${response.status}`, response.status);
  let answer: Record<string, unknown> = {};
  try {
    answer = asRecord(text.trim() ? JSON.parse(text) : undefined) ?? {};
  } catch {
    // Not JSON: an answer that says nothing.
  }
  const errors = call.errorsPath ? valueAt(answer, call.errorsPath) : undefined;
  if (Array.isArray(errors) ? errors.length > 0 : errors !== undefined && errors !== null && errors !== false) {
    // The provider's own words, cut short: never the body (or anything it echoes) whole.
    const first = Array.isArray(errors) ? asString(asRecord(errors[0])?.message)?.slice(0, 200) : undefined;
    throw new SubscriptionCallError(`${call.method} ${call.path.split("?")[0]} answered errors${first ? `: ${first}` : ""}`, response.status);
  }
  return answer;
}

/** What the provider's answer to create or renew says. */
export interface Answered {
  providerId: string | undefined;
  providerResourceId: string | undefined;
  expiresAt: Date | null;
  secret: string | undefined;
}

export function readAnswer(decl: SubscriptionDeclaration, answer: Record<string, unknown>): Answered {
  const { idPath, resourceIdPath, expiresPath, expiresFormat, secretPath } = decl.answer;
  const lastSegment = (id: string | undefined, uri: boolean) => (id && uri ? id.replace(/\/+$/, "").split("/").pop() || undefined : id);
  const raw = expiresPath ? valueAt(answer, expiresPath) : undefined;
  let expiresAt: Date | null = null;
  if (typeof raw === "string" || typeof raw === "number") {
    // A number is never ISO 8601: epoch milliseconds (Jira documents its expirationDate both ways).
    const date = expiresFormat === "epoch_ms" || typeof raw === "number" ? new Date(Number(raw)) : new Date(String(raw));
    if (!Number.isNaN(date.getTime())) expiresAt = date;
  }
  return {
    providerId: idPath ? lastSegment(asString(valueAt(answer, idPath)), decl.answer.idIsUri) : undefined,
    providerResourceId: resourceIdPath ? asString(valueAt(answer, resourceIdPath)) : undefined,
    expiresAt,
    secret: secretPath ? asString(valueAt(answer, secretPath)) : undefined,
  };
}

/** What a follow-up call answered, over what create answered: the follow-up's values win where it has them. */
export function mergeAnswers(first: Answered, then: Answered): Answered {
  return {
    providerId: first.providerId ?? then.providerId,
    providerResourceId: then.providerResourceId ?? first.providerResourceId,
    expiresAt: then.expiresAt ?? first.expiresAt,
    secret: then.secret ?? first.secret,
  };
}

/** The values a create's templates may use, with a fresh channel id and the requested expiry. */
export function createVars(base: TemplateVars, decl: SubscriptionDeclaration, now: Date): TemplateVars {
  const expires = new Date(now.getTime() + decl.lifetimeSeconds * 1000);
  return { ...base, channelId: randomUUID(), expiresAt: expires.toISOString(), expiresAtMs: String(expires.getTime()) };
}
