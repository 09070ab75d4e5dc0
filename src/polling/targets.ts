/**
 * What is polled: every connector with a declared `polling` section (its polled triggers) or a code
 * change reader of its own (`changes`, Gmail and Dropbox: all its triggers, read from one history). Derived
 * once from the catalog; the queue's statements take it as parameters.
 */
import type { PolledPairs } from "../connections/store/index.ts";
import { connectionChangeReader } from "../connectors/changes.ts";
import type { ConnectorDefinition } from "../connectors/types.ts";

export interface PollTarget {
  def: ConnectorDefinition;
  /** The triggers a poll reads; a connection is polled while its deployment lists one of them. */
  triggers: string[];
  /** POLL_INTERVAL, raised to the connector's declared minimum. */
  intervalMs: number;
}

export type { PolledPairs } from "../connections/store/index.ts";

export function pollTargets(connectors: readonly ConnectorDefinition[], pollIntervalMs: number): Map<string, PollTarget> {
  const targets = new Map<string, PollTarget>();
  for (const def of connectors) {
    const polling = def.declaration.polling;
    const triggers = polling ? Object.keys(polling.triggers) : connectionChangeReader(def.declaration) ? def.triggers.map((t) => t.name) : [];
    if (triggers.length === 0) continue;
    targets.set(def.name, { def, triggers, intervalMs: Math.max(pollIntervalMs, (polling?.minIntervalSeconds ?? 0) * 1000) });
  }
  return targets;
}

export function polledPairs(targets: Map<string, PollTarget>): PolledPairs {
  const pairs: PolledPairs = { connectors: [], triggers: [], intervalsMs: [] };
  for (const [connector, target] of targets) {
    for (const trigger of target.triggers) {
      pairs.connectors.push(connector);
      pairs.triggers.push(trigger);
      pairs.intervalsMs.push(target.intervalMs);
    }
  }
  return pairs;
}
