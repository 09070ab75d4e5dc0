import type { DeliveryStatus } from "../events/messages.ts";
import type { Db } from "../db/database.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import { parsePageArgs } from "../data/pageArgs.ts";
import type { TriggerRef } from "./settings.ts";

/**
 * What the console lists: a deployment's events and deliveries, newest first, in offset pages
 * (offset ≥ 0, limit 1..100). Both are index range scans: (deployment_id, received_at) and
 * (deployment_id, created_at).
 */

export function listEvents(
  db: Db,
  query: { include?: Prisma.TriggerEventInclude; select?: Prisma.TriggerEventSelect },
  deploymentId: string,
  args: { offset: number; limit: number; trigger?: TriggerRef },
) {
  const { offset, limit } = parsePageArgs(args);
  return db.triggerEvent.findMany({
    ...query,
    where: { deploymentId, ...(args.trigger ? { connector: args.trigger.connector, trigger: args.trigger.trigger } : {}) },
    orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
    skip: offset,
    take: limit,
  });
}

export function listDeliveries(
  db: Db,
  query: { include?: Prisma.DeliveryInclude; select?: Prisma.DeliverySelect },
  deploymentId: string,
  args: { offset: number; limit: number; status?: DeliveryStatus },
) {
  const { offset, limit } = parsePageArgs(args);
  return db.delivery.findMany({
    ...query,
    where: { deploymentId, ...(args.status ? { status: args.status } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    skip: offset,
    take: limit,
  });
}
