import type { EventToEnqueue } from "../../src/delivery/queue/enqueue.ts";
import type { AttemptToRecord } from "../../src/delivery/queue/recordAttempts.ts";

/**
 * A GitHub event as the webhook path hands it to enqueue: ids `evt_<id>` and `dlv_<id>`, dedupe key
 * `<id>`, routed by the external id 583231, no body claim; `overrides` for what a test varies.
 */
export function githubEventToEnqueue(deploymentId: string, id: string, overrides: Partial<EventToEnqueue> = {}): EventToEnqueue {
  return {
    eventId: `evt_${id}`,
    deliveryId: `dlv_${id}`,
    deploymentId,
    connectedAccountId: null,
    connector: "github",
    trigger: "issue_opened",
    account: "",
    payloadJson: "{}",
    occurredAt: new Date(),
    dedupeKey: id,
    forwardUnlisted: false,
    routeBy: ["583231"],
    routeByMetadata: null,
    bodyClaim: null,
    ...overrides,
  };
}

/** A first attempt of delivery `id` that a receiver answered 200, as the worker hands it to the recorder; `overrides` for what a test varies. */
export function succeededAttempt(id: string, overrides: Partial<AttemptToRecord> = {}): AttemptToRecord {
  return {
    id,
    status: "SUCCEEDED",
    delayMs: 0,
    statusCode: 200,
    lastError: null,
    url: "https://receiver.example/hooks",
    startedAt: new Date().toISOString(),
    durationMs: 5,
    error: null,
    responseBody: null,
    retryAfterSeconds: null,
    ...overrides,
  };
}
