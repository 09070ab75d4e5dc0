/**
 * What a provider's webhook API remembers in the subscription tests: each hook made, with the
 * account whose token made it, and every call (method, path, body, whose token). The routes that
 * speak each provider's documented protocol are in its test file; this is their memory, and the
 * preamble they share (`hookRoutes`).
 */
import type { DeclaredIdentity } from "../helpers/fakeProviders/declared.ts";
import type { FakeRequest, Grant, Reply, Route, RouteContext } from "../helpers/fakeProviders/oauthServer.ts";

export interface Hook {
  id: string;
  /** The connection's external id whose token made it. */
  owner: string;
  body: Record<string, any>;
}

export interface HookCall {
  method: string;
  path: string;
  body: Record<string, any>;
  owner: string | null;
}

export function fakeHooks() {
  const hooks = new Map<string, Hook>();
  const calls: HookCall[] = [];
  let next = 1000;
  return {
    hooks,
    calls,
    /** Records the call; the caller's grant (undefined: no valid token). */
    record(req: FakeRequest, grant: Grant<DeclaredIdentity> | undefined): Record<string, any> {
      const text = req.rawBody.toString();
      const body = text.trim() ? (JSON.parse(text) as Record<string, any>) : {};
      calls.push({ method: req.method, path: req.path, body, owner: grant?.identity.id ?? null });
      return body;
    },
    /** A new hook; its id is the next number unless the provider makes its own (ClickUp's UUIDs). */
    add(owner: string, body: Record<string, any>, id = String(next++)): Hook {
      const hook = { id, owner, body };
      hooks.set(hook.id, hook);
      return hook;
    },
    live: () => [...hooks.values()],
    made: (method: string) => calls.filter((c) => c.method === method),
  };
}

/** A hook endpoint's call once its caller is known: the parsed body (already recorded) and the path's groups. */
export interface HookCallContext {
  method: string;
  req: FakeRequest;
  body: Record<string, any>;
  grant: Grant<DeclaredIdentity>;
  params: string[];
}

export interface HookRouteSpec {
  /** One route per method, all on this path. */
  methods: string[];
  /** Exact path, or a RegExp whose groups are passed as params. */
  pattern: string | RegExp;
  /** The caller's grant; by default the fake's own Bearer-token check (ClickUp takes the bare token). */
  authorized?(req: FakeRequest, ctx: RouteContext<DeclaredIdentity>): Grant<DeclaredIdentity> | undefined;
  /** What the provider answers a call without a valid token, in its own words and status. */
  unauthorized(): Reply;
  handle(call: HookCallContext): Reply;
}

/**
 * The preamble every webhook endpoint of the fakes shares: find the caller's grant, record the call
 * (whoever made it, token or not), refuse it as the provider does without a valid token, then hand
 * the rest to the provider's own rules.
 */
export function hookRoutes(hooks: ReturnType<typeof fakeHooks>, spec: HookRouteSpec): Route<DeclaredIdentity>[] {
  return spec.methods.map((method) => ({
    method,
    path: spec.pattern,
    handle(req, ctx, params) {
      const grant = spec.authorized ? spec.authorized(req, ctx) : ctx.authenticate(req);
      const body = hooks.record(req, grant);
      if (!grant) return spec.unauthorized();
      return spec.handle({ method, req, body, grant, params });
    },
  }));
}
