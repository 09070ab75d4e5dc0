import type { Services } from "../services.ts";
import { HttpProblem } from "../http/problem.ts";
import { header, type HttpRequest } from "../http/types.ts";

/** The deployment behind the request's `x-api-key`, after its rate limit; 401 or 429 problems otherwise. */
export async function authenticateApiKey(services: Services, request: HttpRequest): Promise<{ deploymentId: string; apiKeyId: string }> {
  const presented = header(request, "x-api-key");
  if (!presented) throw new HttpProblem(401, "missing_api_key", "Send your deployment's API key in the x-api-key header.");
  const check = await services.verifyApiKey(presented);
  if (!check.ok) {
    throw new HttpProblem(401, "invalid_api_key", "The API key is not valid: it may have been revoked, expired or mistyped.");
  }
  await services.rateLimits.api.consume(check.apiKeyId);
  return check;
}
