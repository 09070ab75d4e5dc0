/**
 * The token in an app-keyed subscription's own URL. Box, monday and Jira sign every subscription's
 * deliveries with one key for the whole app (the app's webhook secret or client secret), so a valid
 * signature says "from the provider, for this app" but not "for this subscription": anyone holding
 * a delivery for one tenant could replay it at another subscription's URL. The URL Switchyard gives
 * the provider therefore carries `token`, an HMAC of the subscription's id under the service's key,
 * checked in constant time before the delivery is read. Nothing is stored: the id and the key make it.
 */
import { createHmac } from "node:crypto";
import { safeEqual } from "../crypto/secrets.ts";

/** Signing keys that are one for the whole app, not one per subscription or account. */
export const appKeyed = (key: string | undefined): boolean => key === "client_secret" || key === "webhook_secret";

export function subscriptionUrlToken(urlKey: Buffer, subscriptionId: string): string {
  return createHmac("sha256", urlKey).update(`switchyard subscription url\u0000${subscriptionId}`).digest("base64url").slice(0, 32);
}

export function urlTokenMatches(urlKey: Buffer, subscriptionId: string, given: string | null | undefined): boolean {
  return safeEqual(given ?? "", subscriptionUrlToken(urlKey, subscriptionId));
}
