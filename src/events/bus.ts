import { createRedisEventTarget } from "@graphql-yoga/redis-event-target";
import { createPubSub } from "graphql-yoga";
import type { Redis } from "ioredis";
import type { DeliveryUpdateMessage, ForwardedEventMessage } from "./messages.ts";

/**
 * Live notifications for subscriptions, per deployment. In process by default; through Redis when
 * several instances run, so an event accepted by one reaches a subscriber on another.
 */
export type EventBus = ReturnType<typeof createEventBus>;

type Topics = {
  forwardedEvent: [deploymentId: string, message: ForwardedEventMessage];
  deliveryUpdate: [deploymentId: string, message: DeliveryUpdateMessage];
};

export function createEventBus(redis?: Redis) {
  return createPubSub<Topics>(
    redis ? { eventTarget: createRedisEventTarget({ publishClient: redis, subscribeClient: redis.duplicate() }) } : undefined,
  );
}
