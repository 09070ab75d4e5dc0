import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import { type DiskSpace, refuseWhileLow } from "../db/diskSpace.ts";
import type { Sql } from "../db/sql.ts";
import type { DeliveryQueue } from "../delivery/queue/index.ts";
import type { EventRecorder } from "./record.ts";
import {
  addForwardingTrigger,
  type ForwardingSettingsInput,
  type ForwardingSettingsView,
  getForwardingSettings,
  removeForwardingTrigger,
  saveForwardingSettings,
  type TriggerRef,
} from "./settings.ts";
import { pauseForwarding, resumeForwarding } from "./status.ts";
import { sendTestEvent } from "./testEvent.ts";

export interface ForwardingDeps {
  db: Db;
  sql: Sql;
  box: SecretBox;
  logger: Logger;
  deliveries: DeliveryQueue;
  recorder: EventRecorder;
  /** When a test event happened, and when the settings changed. */
  clock: Clock;
  /** False in production unless FORWARDING_ALLOW_PRIVATE: a forwarding URL must not reach private networks (net/ssrf.ts). */
  allowPrivateTargets: boolean;
  /** The embedded database's disk: no test event is stored while it is low, as no webhook is. */
  diskSpace: Pick<DiskSpace, "low">;
}

/**
 * A deployment's forwarding as operators change it: settings, the trigger list, pause and resume,
 * the test event. Every operation trusts its deploymentId: each is reached only through a GraphQL
 * field whose `deploymentAdmin` auth scope (graphql/builder.ts) ran the access guard
 * (auth/access.ts) on that very id first.
 */
export function createForwarding(deps: ForwardingDeps) {
  const { db, box, deliveries, allowPrivateTargets, clock } = deps;
  return {
    settings: (deploymentId: string): Promise<ForwardingSettingsView | null> => getForwardingSettings(db, deploymentId),
    save: (deploymentId: string, input: ForwardingSettingsInput) => saveForwardingSettings({ db, box, deliveries, allowPrivateTargets, clock }, deploymentId, input),
    addTrigger: (deploymentId: string, ref: TriggerRef) => addForwardingTrigger(db, clock, deploymentId, ref),
    removeTrigger: (deploymentId: string, ref: TriggerRef) => removeForwardingTrigger(db, clock, deploymentId, ref),
    async pause(deploymentId: string): Promise<ForwardingSettingsView> {
      await pauseForwarding(deps, deploymentId);
      return (await getForwardingSettings(db, deploymentId))!;
    },
    async resume(deploymentId: string): Promise<ForwardingSettingsView> {
      await resumeForwarding(deps, deploymentId);
      return (await getForwardingSettings(db, deploymentId))!;
    },
    sendTestEvent: (deploymentId: string, ref: TriggerRef) => {
      refuseWhileLow(deps.diskSpace);
      return sendTestEvent(deps.recorder, deploymentId, ref, clock.now());
    },
  };
}
export type Forwarding = ReturnType<typeof createForwarding>;
