import { randomBytes } from "node:crypto";
import { findConnector } from "../connectors/registry.ts";
import { badInput } from "../errors.ts";
import type { EventRecorder } from "./record.ts";
import type { TriggerRef } from "./settings.ts";

export const TEST_ACCOUNT = "test";

/**
 * The trigger's sample payload through the real pipeline — stored, queued, signed, sent, retried —
 * for account "test". Like Stripe's "Send test webhook" it is delivered whether or not the trigger
 * is in the Forwarding Trigger List (the operator asked for it). With no forwarding URL saved yet
 * it is recorded and shown live, and its delivery waits, held, until a URL is saved.
 * Returns the event id.
 */
export async function sendTestEvent(recorder: EventRecorder, deploymentId: string, ref: TriggerRef, now: Date): Promise<string> {
  const trigger = findConnector(ref.connector)?.triggers.find((t) => t.name === ref.trigger);
  if (!trigger) {
    throw badInput(`There is no trigger ${ref.connector}.${ref.trigger}.`, [{ field: "trigger", message: "unknown connector or trigger" }]);
  }
  const recorded = await recorder.record(
    deploymentId,
    {
      connector: ref.connector,
      trigger: ref.trigger,
      account: TEST_ACCOUNT,
      connectedAccountId: null,
      dedupeKey: `test:${randomBytes(12).toString("hex")}`,
      occurredAt: now,
      data: structuredClone(trigger.samplePayload),
    },
    { forwardUnlisted: true },
  );
  return recorded.eventId;
}
