import type { EventToEnqueue } from "../../src/delivery/queue/enqueue.ts";

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
