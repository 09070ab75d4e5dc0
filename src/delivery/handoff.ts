import type { Reservation } from "./queue/enqueue.ts";

/**
 * Straight to the local worker: the accepting statement (queue/enqueue.ts) records as many of its
 * due deliveries as this process's worker has free slots for already leased to it, and hands them
 * over, so the worker sends them with no claim round trip. The worker is created after the
 * recorder (and only where one runs), so it attaches itself here when it starts; with none
 * attached, nothing is reserved and every delivery waits for a claim as before. Retries, held and
 * resumed rows and other instances' work still go through the claim.
 */
export interface HandoffTarget {
  /** Reserves up to `max` free slots for one batch; undefined when there are none. */
  reserve(max: number): Reservation | undefined;
}

export function createLocalHandoff() {
  let target: HandoffTarget | undefined;
  return {
    /** The worker, while it runs; returns the detach. */
    attach(worker: HandoffTarget): () => void {
      target = worker;
      return () => {
        if (target === worker) target = undefined;
      };
    },
    reserve(max: number): Reservation | undefined {
      return target?.reserve(max);
    },
  };
}

export type LocalHandoff = ReturnType<typeof createLocalHandoff>;
