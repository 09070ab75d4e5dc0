import { setMaxListeners } from "node:events";
import { createRedisEventTarget } from "@graphql-yoga/redis-event-target";
import { createPubSub } from "graphql-yoga";
import type { Redis } from "ioredis";
import type { DeliveryUpdateMessage, ForwardedEventMessage } from "./messages.ts";

/**
 * Live notifications for subscriptions, per deployment. In process by default; through Redis when
 * several instances run, so an event accepted by one reaches a subscriber on another.
 *
 * Publishers call `publish(topic, deploymentId, message)` after their transaction commits.
 * Subscribers use `listen`, which gives each subscriber a bounded buffer: a consumer that falls
 * `bufferSize` messages behind gets what was buffered, then one `EventsDropped` notice, and its
 * subscription ends. Memory per subscriber never grows past `bufferSize` messages.
 */
export type EventBus = ReturnType<typeof createEventBus>;

export type Topics = {
  forwardedEvent: [deploymentId: string, message: ForwardedEventMessage];
  deliveryUpdate: [deploymentId: string, message: DeliveryUpdateMessage];
};
export type Topic = keyof Topics;
export type TopicMessage<T extends Topic> = Topics[T][1];

/** The last item of a subscription whose consumer fell too far behind: how many messages it missed. */
export class EventsDropped {
  constructor(readonly dropped: number) {}
}

export interface Subscription<T> extends AsyncIterableIterator<T | EventsDropped> {
  /** Resolves once the subscription receives messages (with Redis: once SUBSCRIBE is acknowledged). */
  ready: Promise<void>;
}

export const DEFAULT_SUBSCRIPTION_BUFFER = 1000;

export function createEventBus(redis?: Redis) {
  // Channels carry the client's key prefix too (ioredis applies keyPrefix to keys, not to channels),
  // so two installations, or two test runs, sharing one Redis never hear each other.
  const prefix = redis?.options.keyPrefix ?? "";
  const subscribeClient = redis?.duplicate();
  const target: EventTarget = redis && subscribeClient ? prefixed(createRedisEventTarget({ publishClient: redis, subscribeClient }), prefix) : local();
  const pubsub = createPubSub<Topics>({ eventTarget: target });
  const live = new Set<() => void>();

  function listen<T extends Topic>(topic: T, deploymentId: string, bufferSize = DEFAULT_SUBSCRIPTION_BUFFER): Subscription<TopicMessage<T>> {
    type Message = TopicMessage<T>;
    // The same topic name createPubSub publishes on.
    const name = `${topic}:${deploymentId}`;
    const queue: Message[] = [];
    let dropped = 0;
    let finished = false;
    let waiting: ((result: IteratorResult<Message | EventsDropped>) => void) | undefined;

    const onEvent = (event: Event) => {
      if (finished) return;
      const message = (event as CustomEvent<Message>).detail;
      if (waiting) {
        const resolve = waiting;
        waiting = undefined;
        resolve({ value: message, done: false });
      } else if (dropped > 0 || queue.length >= bufferSize) {
        dropped++; // counted, not kept: the notice says how many
      } else {
        queue.push(message);
      }
    };
    const stop = () => {
      if (finished) return;
      finished = true;
      live.delete(stop);
      target.removeEventListener(name, onEvent);
      queue.length = 0;
      waiting?.({ value: undefined, done: true });
      waiting = undefined;
    };

    target.addEventListener(name, onEvent);
    live.add(stop);
    // SUBSCRIBE again for the name: ioredis answers in order, so this resolves after the
    // event target's own SUBSCRIBE was acknowledged and messages flow.
    const ready = subscribeClient ? subscribeClient.subscribe(prefix + name).then(() => undefined) : Promise.resolve();

    const iterator: Subscription<Message> = {
      ready,
      [Symbol.asyncIterator]() {
        return iterator;
      },
      next() {
        if (queue.length > 0) return Promise.resolve({ value: queue.shift() as Message, done: false });
        if (dropped > 0 && !finished) {
          const notice = new EventsDropped(dropped);
          stop();
          return Promise.resolve({ value: notice, done: false });
        }
        if (finished) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          waiting = resolve;
        });
      },
      return() {
        stop();
        return Promise.resolve({ value: undefined, done: true });
      },
      throw(error: unknown) {
        stop();
        return Promise.reject(error);
      },
    };
    return iterator;
  }

  return {
    publish: pubsub.publish,
    listen,
    /** Subscriptions currently open on this instance (a /metrics gauge; tests wait on it). */
    activeSubscriptions: () => live.size,
    /** Ends every open subscription (shutdown): streams complete instead of hanging. */
    close: async () => {
      for (const stop of [...live]) stop();
      subscribeClient?.disconnect();
    },
  };
}

/** An in-process target; thousands of subscribers of one deployment are expected, not a leak. */
function local(): EventTarget {
  const target = new EventTarget();
  setMaxListeners(0, target);
  return target;
}

function prefixed(target: EventTarget, prefix: string): EventTarget {
  if (!prefix) return target;
  const routed = new Map<EventListenerOrEventListenerObject, EventListener>();
  return {
    addEventListener(type, listener) {
      if (!listener) return;
      const call = typeof listener === "function" ? listener : (event: Event) => listener.handleEvent(event);
      // Listeners see the unprefixed name, as they subscribed.
      const wrapped: EventListener = (event) => call(new CustomEvent(type, { detail: (event as CustomEvent).detail }));
      routed.set(listener, wrapped);
      target.addEventListener(prefix + type, wrapped);
    },
    removeEventListener(type, listener) {
      const wrapped = listener && routed.get(listener);
      if (!wrapped) return;
      routed.delete(listener);
      target.removeEventListener(prefix + type, wrapped);
    },
    dispatchEvent(event) {
      return target.dispatchEvent(new CustomEvent(prefix + event.type, { detail: (event as CustomEvent).detail }));
    },
  };
}
