/**
 * "A delivery was just queued in this process": lets the worker start at once instead of at its
 * next poll. Only a hint — the worker polls the database anyway, so other instances' events and
 * retries coming due are found without it.
 */
export interface DeliverySignal {
  notify(): void;
  /** Returns the function that unsubscribes. */
  subscribe(listener: () => void): () => void;
}

export function createDeliverySignal(): DeliverySignal {
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
