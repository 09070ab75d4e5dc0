/**
 * BigCommerce's app authorization as documented (developer.bigcommerce.com/docs/integrations/apps/guide/auth):
 * the redirect back carries `code`, `scope` and `context` (`stores/{store_hash}`); the token request
 * must send `context` and `scope` back (else it is refused); the answer names the store (`context`)
 * and the installing `user`. Extra API routes (the webhooks API) are the test's own.
 */
import { findConnector } from "../../../src/connectors/registry.ts";
import { startDeclaredProvider, type DeclaredIdentity, type FakeDeclaredProvider } from "./declared.ts";
import type { Route } from "./oauthServer.ts";

export const BIGCOMMERCE_STORE_HASH = "g5cd38";
export const BIGCOMMERCE_CONTEXT = `stores/${BIGCOMMERCE_STORE_HASH}`;

export function startFakeBigCommerce(routes: Route<DeclaredIdentity>[] = []): Promise<FakeDeclaredProvider> {
  const def = findConnector("bigcommerce")!;
  return startDeclaredProvider(def, {
    callbackParams: { context: BIGCOMMERCE_CONTEXT, scope: def.declaration.oauth!.scopes.join(" ") },
    tokenExtras: (who) => ({
      context: BIGCOMMERCE_CONTEXT,
      user: { id: 24654, username: who.displayName, email: "merchant@example.com" },
      owner: { id: 24654, username: who.displayName, email: "merchant@example.com" },
      account_uuid: "12345678-90ab-cdef-1234-567890abcdef",
    }),
    routes,
  });
}
