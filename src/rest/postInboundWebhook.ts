import { findConnector, resolveEndpoints } from "../connectors/registry.ts";
import type { InboundRequest, VerificationKeys } from "../connectors/types.ts";
import { acceptEvents, acceptSync, type InboundOutcome, UpstreamUnavailableError } from "../forwarding/inbound.ts";
import { createJwksCache } from "../forwarding/jwksCache.ts";
import { HttpProblem } from "../http/problem.ts";
import { json, type Route } from "../http/types.ts";
import type { Services } from "../services.ts";

export const INBOUND_BODY_LIMIT = 1024 * 1024;

/**
 * POST /webhooks/:deploymentId/:connector — where providers send events. Verified with the
 * connector's own scheme over the raw body before anything is parsed or stored; answered 200 once
 * the events (and their deliveries) are committed, so a 2xx means "will be forwarded".
 */
export function postInboundWebhook(services: Services): Route {
  const jwks = createJwksCache();
  const { logger, config } = services;

  return {
    method: "POST",
    path: "/webhooks/:deploymentId/:connector",
    handler: async (request) => {
      const def = findConnector(request.params.connector);
      if (!def) throw new HttpProblem(404, "unknown_connector", `There is no connector named "${request.params.connector}".`);
      const deploymentId = request.params.deploymentId;
      // The deployment and the webhook secret in force, in one plain SQL statement, kept ≤ 1 s per instance.
      const credentials = await services.inboundCredentials.get(services, deploymentId, def);
      if (!credentials) throw new HttpProblem(404, "not_found", "There is no such deployment.");

      const rawBody = await request.body(INBOUND_BODY_LIMIT);
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(", ") : value;
      const inbound: InboundRequest = { headers, rawBody };

      const { webhookSecret } = credentials;
      const now = new Date();
      const jwksUrl = resolveEndpoints(def, config.connectorEnv).jwksUrl;
      let keys: VerificationKeys | undefined;
      if (jwksUrl) keys = { jwks: await jwks.get(jwksUrl).catch(() => ({ keys: [] })) };
      let verified = def.inbound.verify(inbound, webhookSecret ?? "", now, keys);
      if (!verified.ok && verified.refreshKeys && jwksUrl) {
        const fresh = await jwks.refresh(jwksUrl).catch(() => undefined);
        if (fresh) verified = def.inbound.verify(inbound, webhookSecret ?? "", now, { jwks: fresh });
      }
      if (!verified.ok) {
        logger.info({ deploymentId, connector: def.name, reason: verified.reason }, "inbound webhook refused");
        throw new HttpProblem(401, "invalid_signature", `The request is not signed by ${def.displayName} for this deployment (${verified.reason}).`);
      }

      const parsed = def.inbound.parse(inbound);
      if (parsed.kind === "challenge") {
        return { status: parsed.status, headers: { "content-type": parsed.contentType }, body: parsed.body };
      }
      let outcome: InboundOutcome;
      try {
        outcome = parsed.sync
          ? await acceptSync(services, deploymentId, def, parsed.sync)
          : await acceptEvents(services, deploymentId, def, parsed.events);
      } catch (error) {
        if (error instanceof UpstreamUnavailableError) {
          logger.warn({ deploymentId, connector: def.name, err: error }, "could not read a notification's changes");
          throw new HttpProblem(503, "upstream_unavailable", `${def.displayName} could not be read just now; deliver the notification again later.`, {
            "retry-after": "30",
          });
        }
        throw error;
      }
      return json(200, outcome);
    },
  };
}
