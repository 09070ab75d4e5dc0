import { useSyncExternalStore } from "react";
import { liveState } from "../../client.ts";

/** The "Live" marker: the state of the websocket the live updates come over. */
export function LiveStatus() {
  const connection = useSyncExternalStore(liveState.subscribe, () => liveState.current);
  return (
    <span className="live" role="status" data-testid="live-state">
      <span className={`live-dot ${connection === "live" ? "on" : ""}`} aria-hidden="true" />
      {connection === "live"
        ? "Live"
        : connection === "connecting" || connection === "idle"
          ? "Connecting…"
          : connection === "paused"
            ? "Paused — resuming shortly"
            : "Offline — reconnecting"}
    </span>
  );
}
