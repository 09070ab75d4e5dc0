/**
 * "Something was just queued in this process": lets a loop (the delivery worker, the subscription
 * manager) start at once instead of at its next poll. Only a hint — each loop also polls the
 * database, so other instances' work and work coming due are found without it.
 */
export interface WakeSignal {
  notify(): void;
  /** Returns the function that unsubscribes. */
  subscribe(listener: () => void): () => void;
}

export function createWakeSignal(): WakeSignal {
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
