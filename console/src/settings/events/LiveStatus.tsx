import { useSyncExternalStore } from "react";
import { liveState } from "../../client.ts";

/**
 * The "Live" marker: live only while the websocket is up and the page's subscriptions run.
 * `stopped`: one ended with an error (the caller lost access, say) while the socket stayed up, so
 * nothing new arrives however healthy the connection is.
 */
export function LiveStatus({ stopped }: { stopped: boolean }) {
  const connection = useSyncExternalStore(liveState.subscribe, () => liveState.current);
  const on = connection === "live" && !stopped;
  return (
    <span className="live" role="status" data-testid="live-state">
      <span className={`live-dot ${on ? "on" : ""}`} aria-hidden="true" />
      {stopped
        ? "Stopped"
        : connection === "live"
          ? "Live"
          : connection === "connecting" || connection === "idle"
            ? "Connecting…"
            : connection === "paused"
              ? "Paused — resuming shortly"
              : "Offline — reconnecting"}
    </span>
  );
}
