import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { findConnector, resolveJwksUrl } from "../connectors/registry.ts";
import type { HandshakeRefusal, HandshakeReply } from "../connectors/schemes/index.ts";
import { VERIFICATION_TOKEN_RECEIVED } from "../connectors/schemes/verificationToken.ts";
import type { ConnectorDefinition, InboundRequest, VerificationKeys } from "../connectors/types.ts";
import type { InboundSecrets } from "../credentials/inboundSecrets.ts";
import type { VerificationTokens } from "../credentials/verificationTokens.ts";
import { type DiskSpace, refuseWhileLow } from "../db/diskSpace.ts";
import type { OperationsMetrics } from "../delivery/metrics.ts";
import { type InboundEvents, type InboundOutcome, UpstreamUnavailableError } from "../forwarding/inbound.ts";
import { createJwksCache } from "../forwarding/jwksCache.ts";
import { AppError, unknownConnector } from "../errors.ts";
import { asProblem } from "../http/problem.ts";
import { type HttpRequest, type HttpResponse, json, type Route } from "../http/types.ts";
import type { SubscriptionNotifications } from "../subscriptions/notifications.ts";

/** What the inbound webhook routes use, and nothing else. */
export interface InboundWebhookDeps {
  config: Pick<Config, "publicUrl" | "connectorEnv">;
  logger: Logger;
  clock: Clock;
  metrics: Pick<OperationsMetrics, "inbound">;
  inboundSecrets: Pick<InboundSecrets, "get">;
  verificationTokens: Pick<VerificationTokens, "capture">;
  inboundEvents: Pick<InboundEvents, "acceptEvents" | "acceptSync">;
  /** The embedded database's disk: under MIN_FREE_DISK_MB nothing is accepted (the provider redelivers later). */
  diskSpace: Pick<DiskSpace, "low">;
  /**
   * Makes the named accounts' connections due for the poller now (`webhook.reads: "queued"`,
   * Dropbox); how many ACTIVE connections of the deployment they are.
   */
  pollNudge: { nudge(deploymentId: string, connector: string, externalIds: string[]): Promise<number> };
  /** Notifications of per-account provider subscriptions, verified with each subscription's own secret. */
  subscriptionNotifications: Pick<SubscriptionNotifications, "accept" | "acceptSigned" | "acceptHandshake">;
}

export const INBOUND_BODY_LIMIT = 1024 * 1024;

const PATH = "/webhooks/:deploymentId/:connector";

/** The connector (404 unless it takes inbound events) and the deployment's webhook secret (404 unless it exists). */
async function resolveTarget(inboundSecrets: InboundWebhookDeps["inboundSecrets"], request: HttpRequest): Promise<{ def: ConnectorDefinition; deploymentId: string; secret: string }> {
  const def = findConnector(request.params.connector);
  if (!def) throw unknownConnector(request.params.connector);
  if (def.inbound.delivery === "none") throw new AppError("NOT_FOUND", `${def.displayName} sends no events to Switchyard.`);
  const deploymentId = request.params.deploymentId;
  // The deployment and the webhook secret in force, in one plain SQL statement, kept ≤ 1 s per instance.
  const credentials = await inboundSecrets.get(deploymentId, def);
  if (!credentials) throw new AppError("NOT_FOUND", "There is no such deployment.");
  return { def, deploymentId, secret: credentials.webhookSecret ?? "" };
}

function inboundRequest(publicUrl: string, request: HttpRequest, rawBody: Buffer): InboundRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  return {
    headers,
    rawBody,
    method: request.method,
    query: request.url.searchParams,
    url: `${publicUrl}${request.url.pathname}${request.url.search}`,
  };
}

const reply = (answer: HandshakeReply | HandshakeRefusal): HttpResponse => {
  if ("refused" in answer) throw new AppError("BAD_USER_INPUT", `This is not a valid verification request: ${answer.refused}`);
  return {
    status: answer.status,
    headers: { "content-type": answer.contentType, "cache-control": "no-store", ...answer.headers },
    body: answer.body,
  };
};

/**
 * POST /webhooks/:deploymentId/:connector — where providers send events. Verified with the
 * connector's declared scheme over the raw body before anything is parsed or stored; answered 200
 * once the events (and their deliveries) are committed, so a 2xx means "will be forwarded".
 * URL-verification handshakes are answered with what the provider expects and store nothing; a
 * verification token the operator must read back and confirm (connectors that declare one) is kept sealed.
 */
export function postInboundWebhook({ config, logger, clock, metrics, inboundSecrets, verificationTokens, inboundEvents, subscriptionNotifications, pollNudge, diskSpace }: InboundWebhookDeps): Route {
  const jwks = createJwksCache({ clock });

  const route: Route = {
    method: "POST",
    path: PATH,
    handler: async (request) => {
      refuseWhileLow(diskSpace);
      const { def, deploymentId, secret } = await resolveTarget(inboundSecrets, request);
      const inbound = inboundRequest(config.publicUrl, request, await request.body(INBOUND_BODY_LIMIT));

      const early = def.inbound.handshake(inbound, secret, "before_verify");
      if (early) return reply(early);
      if (def.inbound.delivery === "subscription") {
        const accepted = await readingChanges(deploymentId, def, () => subscriptionNotifications.accept(deploymentId, def.name, inbound));
        if ("refused" in accepted) throw new AppError("INVALID_SIGNATURE", `The request is not a ${def.displayName} notification for this deployment (${accepted.refused}).`);
        countAccepted(def.name, accepted);
        return json(202, accepted);
      }
      // A subscription's own URL ({subscriptionUrl}): verified with that subscription's key, not the deployment's secret.
      const subscriptionId = request.url.searchParams.get("subscription");
      if (subscriptionId && def.declaration.subscription?.webhook) {
        const handshake = await subscriptionNotifications.acceptHandshake(deploymentId, def, inbound, subscriptionId);
        if (handshake && "refused" in handshake) throw new AppError("INVALID_SIGNATURE", `The request is not a ${def.displayName} handshake for this subscription (${handshake.refused}).`);
        if (handshake) return reply(handshake);
        const accepted = await readingChanges(deploymentId, def, () => subscriptionNotifications.acceptSigned(deploymentId, def, inbound, subscriptionId, secret));
        if ("refused" in accepted) throw new AppError("INVALID_SIGNATURE", `The request is not signed by ${def.displayName} for this subscription (${accepted.refused}).`);
        countAccepted(def.name, accepted);
        return json(200, accepted);
      }
      const verificationToken = def.inbound.verificationToken(inbound);
      if (verificationToken) {
        // Unsigned, so anyone's: kept for an owner or admin to confirm, never in force by itself (verificationTokens.ts).
        await verificationTokens.capture(deploymentId, def, verificationToken);
        logger.info({ deploymentId, connector: def.name }, "webhook verification token received");
        return reply(VERIFICATION_TOKEN_RECEIVED);
      }

      const now = clock.now();
      const jwksUrl = resolveJwksUrl(def, config.connectorEnv);
      let keys: VerificationKeys | undefined;
      // Without a push audience nothing can verify: no key is fetched for an unauthenticated request.
      if (jwksUrl && secret) keys = { jwks: await jwks.get(jwksUrl).catch(() => ({ keys: [] })) };
      let verified = def.inbound.verify(inbound, secret, now, keys);
      if (!verified.ok && verified.refreshKeys && jwksUrl && secret) {
        const fresh = await jwks.refresh(jwksUrl).catch(() => undefined);
        if (fresh) verified = def.inbound.verify(inbound, secret, now, { jwks: fresh });
      }
      if (!verified.ok) {
        throw new AppError("INVALID_SIGNATURE", `The request is not signed by ${def.displayName} for this deployment (${verified.reason}).`);
      }

      const late = def.inbound.handshake(inbound, secret, "after_verify");
      if (late) return reply(late);

      const parsed = def.inbound.parse(inbound);
      if (parsed.changed) {
        // Read by the poller, after this answer: the provider waits only seconds, and one
        // notification may name many accounts. Durable: the schedule is a column of each connection.
        const connections = await pollNudge.nudge(deploymentId, def.name, parsed.changed);
        return json(200, { accounts: new Set(parsed.changed).size, queued: connections });
      }
      const outcome: InboundOutcome = await readingChanges(deploymentId, def, () =>
        parsed.sync
          ? inboundEvents.acceptSync(deploymentId, def, parsed.sync)
          : inboundEvents.acceptEvents(deploymentId, def, parsed.events, { request: { rawBody: inbound.rawBody, now } }),
      );
      countAccepted(def.name, outcome);
      return json(200, outcome);
    },
  };

  /** A provider that could not be read is a 503 with Retry-After: the notification is delivered again later. */
  async function readingChanges<T>(deploymentId: string, def: ConnectorDefinition, accept: () => Promise<T>): Promise<T> {
    try {
      return await accept();
    } catch (error) {
      if (error instanceof UpstreamUnavailableError) {
        logger.warn({ deploymentId, connector: def.name, err: error }, "could not read a notification's changes");
        throw new AppError("UPSTREAM_UNAVAILABLE", `${def.displayName} could not be read just now; deliver the notification again later.`, { retryAfterSeconds: 30 });
      }
      throw error;
    }
  }

  function countAccepted(connector: string, outcome: InboundOutcome) {
    metrics.inbound(connector, "forwarded", outcome.forwarded);
    metrics.inbound(connector, "stored", outcome.recorded - outcome.forwarded);
    metrics.inbound(connector, "duplicate", outcome.duplicates);
    metrics.inbound(connector, "unrouted", outcome.unrouted);
  }

  // One info line and one count per refused request: ids, status and code (the detail names the
  // failed check) — never a header or the body.
  return {
    ...route,
    handler: async (request) => {
      // A connector whose provider wants bare answers (Xero) gets the same status with no body.
      const bare = findConnector(request.params.connector)?.declaration.webhook?.emptyAnswers === true;
      try {
        const answer = await route.handler(request);
        return bare ? { status: answer.status, headers: { "cache-control": "no-store" }, body: "" } : answer;
      } catch (error) {
        const problem = asProblem(error);
        if (problem) {
          // Whatever the caller typed as the connector must not become a label value.
          const connector = findConnector(request.params.connector)?.name ?? "unknown";
          metrics.inbound(connector, problem.code);
          logger.info(
            { deploymentId: request.params.deploymentId, connector, status: problem.status, code: problem.code, detail: problem.detail },
            "inbound webhook refused",
          );
          if (bare) return { status: problem.status, headers: { ...problem.headers, "cache-control": "no-store" }, body: "" };
        }
        throw error;
      }
    },
  };
}

/**
 * GET /webhooks/:deploymentId/:connector — only for providers that verify the URL with a GET
 * challenge (Dropbox). Anything else is 405: events are POSTed.
 */
export function getInboundWebhook({ config, inboundSecrets }: Pick<InboundWebhookDeps, "config" | "inboundSecrets">): Route {
  return {
    method: "GET",
    path: PATH,
    handler: async (request) => {
      const { def, secret } = await resolveTarget(inboundSecrets, request);
      const answer = def.inbound.handshake(inboundRequest(config.publicUrl, request, Buffer.alloc(0)), secret, "before_verify");
      if (answer) return reply(answer);
      throw new AppError("METHOD_NOT_ALLOWED", "Webhook events are delivered with POST.", { headers: { allow: "POST" } });
    },
  };
}
