/**
 * "Connections or the trigger list changed in this process": wakes the manager to plan at once
 * instead of at its next periodic plan (which finds other instances' changes anyway).
 */
export interface SubscriptionSignal {
  notify(): void;
  /** Returns the function that unsubscribes. */
  subscribe(listener: () => void): () => void;
}

export function createSubscriptionSignal(): SubscriptionSignal {
  const listeners = new Set<() => void>();
  return {
    notify: () => {
      for (const listener of listeners) listener();
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
