import type { ApiKeys } from "../auth/apiKeys.ts";
import { header, type HttpRequest } from "../http/types.ts";

/** The deployment behind the request's `x-api-key`, after its rate limit (ApiKeys.authenticate, as GraphQL). */
export function authenticateApiKey(apiKeys: ApiKeys, request: HttpRequest): Promise<{ deploymentId: string; apiKeyId: string }> {
  return apiKeys.authenticate(header(request, "x-api-key"));
}

/** authenticateApiKey and `work` in one database round trip (ApiKeys.authenticateWith). */
export function withApiKey<T extends { apiKeyId: string }>(apiKeys: ApiKeys, request: HttpRequest, work: (keyHash: string) => Promise<T | undefined>): Promise<T> {
  return apiKeys.authenticateWith(header(request, "x-api-key"), work);
}
