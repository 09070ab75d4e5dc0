import type { SubscriptionWork } from "./row.ts";

/** Every recording statement holds the claim's lease: a row taken over by another instance (or deleted meanwhile) is not touched. */
export const HELD = `id = $1 and lease_until = $2::timestamp and status <> 'DELETED'`;
export const held = (work: SubscriptionWork) => [work.id, work.leaseUntil.toISOString()];
