import { useSyncExternalStore } from "react";
import { type LiveState, liveState } from "../../client.ts";

const LABELS: Record<LiveState, string> = {
  live: "Live",
  idle: "Connecting…",
  connecting: "Connecting…",
  paused: "Paused — resuming shortly",
  offline: "Offline — reconnecting",
};

/**
 * The "Live" marker: live only while the websocket is up and the page's subscriptions run.
 * `stopped`: one ended with an error (the caller lost access, say) while the socket stayed up, so
 * nothing new arrives however healthy the connection is.
 */
export function LiveStatus({ stopped }: { stopped: boolean }) {
  const connection = useSyncExternalStore(liveState.subscribe, () => liveState.current);
  return (
    <span className="live" role="status" data-testid="live-state">
      <span className={`live-dot ${connection === "live" && !stopped ? "on" : ""}`} aria-hidden="true" />
      {stopped ? "Stopped" : LABELS[connection]}
    </span>
  );
}
