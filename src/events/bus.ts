import { setMaxListeners } from "node:events";
import type { Redis } from "ioredis";
import type { DeliveryUpdateMessage, ForwardedEventMessage } from "./messages.ts";
import type { RedisHealth } from "./redisHealth.ts";

/**
 * Live notifications for subscriptions, per deployment. In process by default; through Redis when
 * several instances run, so an event accepted by one reaches a subscriber on another.
 *
 * Publishers call `publish(topic, deploymentId, message)` after their transaction commits.
 * Subscribers use `listen`, which gives each subscriber a bounded buffer: a consumer that falls
 * `bufferSize` messages behind gets what was buffered, then one `EventsDropped` notice, and its
 * subscription ends. Memory per subscriber never grows past `bufferSize` messages.
 *
 * Redis is optional at run time. While it is unreachable a publish goes to this instance's own
 * subscribers only (never an unhandled rejection, never a crash), and no subscriber is left to miss
 * events silently: every open subscription gets one `LiveDegraded` notice and ends, and new ones are
 * refused (`ready` rejects with `LiveDegradedError`) until Redis is back. Subscribers then resume
 * with `forwardedEvents(after:)`, which replays what they missed from the database.
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

/** The last item of a subscription ended because Redis became unreachable (see above). */
export class LiveDegraded {}

/** Why a subscription cannot start now: Redis is configured and unreachable. */
export class LiveDegradedError extends Error {
  constructor() {
    super("Live events are paused: this instance cannot reach Redis, which relays events between instances.");
  }
}

export interface Subscription<T> extends AsyncIterableIterator<T | EventsDropped | LiveDegraded> {
  /** Resolves once the subscription receives messages (with Redis: once SUBSCRIBE is acknowledged). */
  ready: Promise<void>;
}

export const DEFAULT_SUBSCRIPTION_BUFFER = 1000;

export function createEventBus(redis?: Redis, health?: RedisHealth) {
  // Channels carry the client's key prefix too (ioredis applies keyPrefix to keys, not to channels),
  // so two installations, or two test runs, sharing one Redis never hear each other.
  const prefix = redis?.options.keyPrefix ?? "";
  const subscribeClient = redis?.duplicate();
  if (subscribeClient) health?.watch(subscribeClient);
  const localTarget = local();
  const target: EventTarget = redis && subscribeClient ? redisTarget(redis, subscribeClient, prefix, localTarget, health) : localTarget;
  const live = new Map<() => void, () => void>(); // stop → degrade
  const degraded = () => redis !== undefined && health !== undefined && health.state() !== "ok";
  // Redis went away: no open subscription may go on as if it heard everything.
  health?.onChange((up) => {
    if (!up) for (const degrade of [...live.values()]) degrade();
  });

  function publish<T extends Topic>(topic: T, deploymentId: string, message: TopicMessage<T>): void {
    target.dispatchEvent(new CustomEvent(`${topic}:${deploymentId}`, { detail: message }));
  }

  function listen<T extends Topic>(topic: T, deploymentId: string, bufferSize = DEFAULT_SUBSCRIPTION_BUFFER): Subscription<TopicMessage<T>> {
    type Message = TopicMessage<T>;
    // The same topic name createPubSub publishes on.
    const name = `${topic}:${deploymentId}`;
    const queue: Message[] = [];
    let dropped = 0;
    let finished = false;
    let lostRedis = false;
    let waiting: ((result: IteratorResult<Message | EventsDropped | LiveDegraded>) => void) | undefined;

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

    /** Redis went away: what is queued is still delivered, then one LiveDegraded, then the end. */
    const degrade = () => {
      if (finished || lostRedis) return;
      lostRedis = true;
      target.removeEventListener(name, onEvent);
      if (waiting) {
        const resolve = waiting;
        waiting = undefined;
        resolve({ value: new LiveDegraded(), done: false });
        stop();
      }
    };

    let ready: Promise<void>;
    if (degraded()) {
      finished = true;
      ready = Promise.reject(new LiveDegradedError());
      ready.catch(() => undefined);
    } else {
      target.addEventListener(name, onEvent);
      live.set(stop, degrade);
      // SUBSCRIBE again for the name: ioredis answers in order, so this resolves after the
      // event target's own SUBSCRIBE was acknowledged and messages flow.
      ready = subscribeClient
        ? subscribeClient.subscribe(prefix + name).then(
            () => undefined,
            (error: unknown) => {
              health?.failed(error);
              stop();
              throw new LiveDegradedError();
            },
          )
        : Promise.resolve();
    }

    const iterator: Subscription<Message> = {
      ready,
      [Symbol.asyncIterator]() {
        return iterator;
      },
      next() {
        if (queue.length > 0) return Promise.resolve({ value: queue.shift() as Message, done: false });
        if (lostRedis && !finished) {
          stop();
          return Promise.resolve({ value: new LiveDegraded(), done: false });
        }
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
    publish,
    listen,
    /** Subscriptions currently open on this instance (a /metrics gauge; tests wait on it). */
    activeSubscriptions: () => live.size,
    /** Ends every open subscription (shutdown): streams complete instead of hanging. */
    close: async () => {
      for (const stop of [...live.keys()]) stop();
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

/**
 * An EventTarget over Redis pub/sub (what @graphql-yoga/redis-event-target does, plus failure
 * handling: its publish promise was left unhandled, which ended the process when Redis went away).
 * Listeners are kept on `localTarget` under the unprefixed name; one SUBSCRIBE per channel in use.
 * A publish that Redis cannot take is dispatched to this instance's listeners instead.
 */
function redisTarget(publishClient: Redis, subscribeClient: Redis, prefix: string, localTarget: EventTarget, health: RedisHealth | undefined): EventTarget {
  const listening = new Map<string, number>();
  subscribeClient.on("message", (channel: string, text: string) => {
    if (!channel.startsWith(prefix)) return;
    let detail: unknown;
    try {
      detail = JSON.parse(text);
    } catch {
      return; // not ours
    }
    localTarget.dispatchEvent(new CustomEvent(channel.slice(prefix.length), { detail }));
  });
  const fallBack = (event: Event) => {
    health?.fellBack("publish");
    localTarget.dispatchEvent(new CustomEvent(event.type, { detail: (event as CustomEvent).detail }));
  };
  return {
    addEventListener(type, listener) {
      if (!listener) return;
      localTarget.addEventListener(type, listener);
      const count = listening.get(type) ?? 0;
      listening.set(type, count + 1);
      if (count === 0) subscribeClient.subscribe(prefix + type).catch(() => undefined); // the caller's own SUBSCRIBE reports failures
    },
    removeEventListener(type, listener) {
      if (!listener) return;
      localTarget.removeEventListener(type, listener);
      const count = (listening.get(type) ?? 0) - 1;
      if (count > 0) {
        listening.set(type, count);
        return;
      }
      listening.delete(type);
      subscribeClient.unsubscribe(prefix + type).catch(() => undefined);
    },
    dispatchEvent(event) {
      if (health && health.state() !== "ok") {
        fallBack(event);
        return true;
      }
      publishClient.publish(prefix + event.type, JSON.stringify((event as CustomEvent).detail)).catch((error: unknown) => {
        health?.failed(error);
        fallBack(event);
      });
      return true;
    },
  };
}
