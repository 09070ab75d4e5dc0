/**
 * What a provider's webhook API remembers in the subscription tests: each hook made, with the
 * account whose token made it, and every call (method, path, body, whose token). The routes that
 * speak each provider's documented protocol are in its test file; this is only their memory.
 */
import type { DeclaredIdentity } from "../helpers/fakeProviders/declared.ts";
import type { FakeRequest, Grant } from "../helpers/fakeProviders/oauthServer.ts";

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
    add(owner: string, body: Record<string, any>): Hook {
      const hook = { id: String(next++), owner, body };
      hooks.set(hook.id, hook);
      return hook;
    },
    live: () => [...hooks.values()],
    made: (method: string) => calls.filter((c) => c.method === method),
  };
}
