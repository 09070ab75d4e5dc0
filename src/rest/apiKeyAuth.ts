import { apiKeyHash } from "../auth/apiKeys.ts";
import type { Services } from "../services.ts";
import { invalidApiKey, missingApiKey } from "../errors.ts";
import { header, type HttpRequest } from "../http/types.ts";

/** The deployment behind the request's `x-api-key`, after its rate limit; 401 or 429 problems otherwise. */
export async function authenticateApiKey(services: Services, request: HttpRequest): Promise<{ deploymentId: string; apiKeyId: string }> {
  const presented = header(request, "x-api-key");
  if (!presented) throw missingApiKey();
  const check = await services.verifyApiKey(presented);
  if (!check.ok) throw invalidApiKey();
  await services.rateLimits.api.consume(check.apiKeyId);
  return check;
}

/**
 * The same outcomes as authenticateApiKey followed by `work`, in one database round trip: `work`
 * receives the key's hash and checks the key itself in its query (undefined: no usable key has
 * that hash). The rate limit is spent after the query, since the key's id is known only then.
 */
export async function withApiKey<T extends { apiKeyId: string }>(
  services: Services,
  request: HttpRequest,
  work: (keyHash: string) => Promise<T | undefined>,
): Promise<T> {
  const presented = header(request, "x-api-key");
  if (!presented) throw missingApiKey();
  const hash = apiKeyHash(presented);
  const result = hash === undefined ? undefined : await work(hash);
  if (!result) throw invalidApiKey();
  await services.rateLimits.api.consume(result.apiKeyId);
  services.verifyApiKey.recordUse(result.apiKeyId);
  return result;
}
